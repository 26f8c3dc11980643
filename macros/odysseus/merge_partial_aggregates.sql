{% macro merge_partial_aggregates(relation, group_by, aggregates, window=none) %}
  {{- stream_windows._sw_check_call('merge_partial_aggregates', ['relation', 'group_by', 'aggregates', 'window'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('merge_partial_aggregates', 'stream_windows')(stream_windows._sw_unfiltered(relation), group_by, aggregates, window)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__merge_partial_aggregates(relation, group_by, aggregates, window) %}
  {{ return(stream_windows._sw_unsupported_adapter('merge_partial_aggregates')) }}
{% endmacro %}

{#- Odysseus' AGGREGATE over partial aggregates (the PRE_AGG -> AGG pipeline): merges
    any set of rows made by partial_aggregate (any panes, in any order) into one row
    per group with the final values, equal to the direct computation over the rows
    those panes hold (exactly for the exact functions; floating-point sums and
    (co-)moments up to rounding; the sketches within their error bounds).
    `aggregates` is the mapping given to partial_aggregate (or a subset of it).

    `window` {'size': s, 'advance': a} merges time panes into hopping windows
    instead (the panes technique): one row per group and window [window_start,
    window_end) holding at least one pane, window starts on multiples of a (the
    epoch for timestamps), as Spark's window(ts, s, a) groups. Each pane state row is
    copied into the size/advance windows it lies in, so the copies are of panes, not
    of input rows. The panes' size must divide both s and a (checked on every row). -#}
{% macro spark__merge_partial_aggregates(relation, group_by, aggregates, window) %}
  {%- set macro_name = 'merge_partial_aggregates' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(none, none)) }}{%- endif -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, none) -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation made by partial_aggregate (ref or CTE name)', relation) }}{%- endif -%}
  {%- set groups = stream_windows._sw_as_list(macro_name, 'group_by', group_by) -%}
  {%- set batch = none -%}
  {%- set read = none -%}
  {%- if microbatch is not none -%}
    {%- set hopping = stream_windows._sw_merge_window_sizes(macro_name, window) if window is not none else none -%}
    {%- if hopping is none or hopping.kind != 'interval' or microbatch.event_time | lower != 'window_start' -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='window_start' and a `window` {'size': <interval>, 'advance': <interval>} over time panes (dbt's batches are spans of time); got event_time="
          ~ microbatch.event_time ~ ", window " ~ window ~ ".") }}
    {%- endif -%}
    {%- if microbatch.start is not none -%}
      {#- The batch's windows, and those that start before it and end in it (their
          batches are rewritten), from the panes they hold. A pane with NULL bounds
          passes, to fail the pane check. -#}
      {%- set key = stream_windows._sw_batch_key('pane_start') -%}
      {%- set reach = stream_windows._sw_reach(0, hopping.size, grid={'every': hopping.advance, 'size': hopping.size}) -%}
      {%- set planned_batch = stream_windows._sw_batch_plan(microbatch, reach, relation, key) -%}
      {%- set rewrite_from = planned_batch.rewrite_from -%}
      {%- set read = '(' ~ planned_batch.read ~ ')' -%}
      {%- set window_key = stream_windows._sw_batch_key('timestamp_micros(_sw_window_start)') -%}
      {%- set batch = window_key ~ ' >= ' ~ rewrite_from ~ ' and ' ~ window_key ~ ' < ' ~ microbatch.end -%}
    {%- endif -%}
  {%- endif -%}
  {#- RATE's duration is carried by its states (the span of the merged panes). -#}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'sketches': true, 'duration': 'from the states'}) -%}
  {%- set wanted = [] -%}
  {%- for column in groups -%}{%- do wanted.append(('group_by', column)) -%}{%- endfor -%}
  {%- for agg in aggs -%}
    {%- for state in stream_windows._sw_partial_state_names(agg) -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", state)) -%}{%- endfor -%}
  {%- endfor -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted) -}}
  {%- set windowing = stream_windows._sw_merge_windowing(macro_name, relation, groups, window, read) -%}

  {%- set keys = groups + windowing['keys'] -%}
  {%- set over_group = '(partition by ' ~ keys | join(', ') ~ ')' if keys else '()' -%}
  {%- set helpers = [] -%}
  {%- set finals = [] -%}
  {%- for agg in aggs -%}
    {%- if agg.function == 'rate' and windowing.duration is not none -%}
      {#- A hopping window's RATE divides by the window's length, not its panes' span. -#}
      {%- do helpers.append(windowing.duration ~ ' as _sw_' ~ agg.name ~ '__span') -%}
    {%- else -%}
      {%- for helper, sql in stream_windows._sw_partial_merge_helpers(agg, over_group) -%}{%- do helpers.append(sql ~ ' as ' ~ helper) -%}{%- endfor -%}
    {%- endif -%}
    {%- do finals.append(stream_windows._sw_partial_merge_expr(agg) ~ ' as ' ~ agg.name) -%}
  {%- endfor -%}
  {%- if microbatch is not none -%}
    {%- do finals.append(stream_windows._sw_batch_partition_column(microbatch, 'timestamp_micros(_sw_window_start)')) -%}
  {%- endif -%}
select
    {{ (groups + windowing.outputs + finals) | join(',\n    ') }}
from (select *{{ (', ' ~ helpers | join(', ')) if helpers else '' }} from {{ windowing.relation }} as _sw_states) as _sw_centered
{%- if keys %}
group by {{ keys | join(', ') }}
{%- endif %}
{%- if batch is not none %}
having {{ batch }}
{%- endif %}
{% endmacro %}

{% macro _sw_merge_windowing(macro_name, relation, groups, window, read=none) %}
  {#- {'relation': the state rows (copied per hopping window), 'keys': extra GROUP BY
      columns, 'outputs': extra output columns, 'duration': a window's length in RATE
      units or none}. `read`: a condition on the state rows to read (a batch's). -#}
  {%- if window is none -%}
    {{ return({'relation': relation, 'keys': [], 'outputs': [], 'duration': none}) }}
  {%- endif -%}
  {%- set sizes = stream_windows._sw_merge_window_sizes(macro_name, window) -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, [('window (the pane bounds partial_aggregate outputs for a time pane)', 'pane_start'),
                                                      ('window (the pane bounds partial_aggregate outputs for a time pane)', 'pane_end')]) -}}
  {%- set s = sizes.size -%}
  {%- set a = sizes.advance -%}
  {%- if sizes.kind == 'interval' -%}
    {%- set start = 'unix_micros(pane_start)' -%}
    {%- set length = '(unix_micros(pane_end) - unix_micros(pane_start))' -%}
    {%- set outputs = ['timestamp_micros(_sw_window_start) as window_start', 'timestamp_micros(_sw_window_start + ' ~ s ~ ') as window_end'] -%}
    {%- set duration = (s / 1000000) ~ 'D' -%}
  {%- else -%}
    {%- set start = 'pane_start' -%}
    {%- set length = '(pane_end - pane_start)' -%}
    {%- set outputs = ['_sw_window_start as window_start', '_sw_window_start + ' ~ s ~ ' as window_end'] -%}
    {%- set duration = s ~ 'D' -%}
  {%- endif -%}
  {%- set model_name = stream_windows._sw_model_name() -%}
  {%- set where = ["'pane_start ', cast(pane_start as string)"] -%}
  {%- for column in groups -%}{%- do where.append("', " ~ column ~ " ', coalesce(cast(" ~ column ~ " as string), 'NULL')") -%}{%- endfor -%}
  {%- set message = "concat('" ~ macro_name ~ "() in model " ~ model_name ~ ": a pane of length ', cast(" ~ length
      ~ " as string), ' does not divide the window size " ~ s ~ " and advance " ~ a ~ " (" ~ ('microseconds' if sizes.kind == 'interval' else 'units')
      ~ "), at ', " ~ where | join(', ') ~ ")" -%}
  {#- The first window holding the pane starts at the first multiple of the advance at
      or after (pane end - size); the last at the last multiple at or before its start. -#}
  {%- set first = '(' ~ start ~ ' + ' ~ length ~ ' - ' ~ s ~ ')' -%}
  {%- set copies = 'explode(sequence(cast(' ~ first ~ ' + pmod(-' ~ first ~ ', ' ~ a ~ ') as bigint), cast(' ~ start ~ ' - pmod(' ~ start ~ ', ' ~ a ~ ') as bigint), ' ~ a ~ '))' -%}
  {{ return({'relation': '(select *, ' ~ copies ~ ' as _sw_window_start from (select * from ' ~ relation ~ ' where ' ~ (read ~ ' and ' if read else '') ~ 'case when ' ~ length ~ ' > 0 and pmod(' ~ s ~ ', ' ~ length ~ ') = 0 and pmod(' ~ a ~ ', ' ~ length ~ ') = 0 then true else raise_error(' ~ message ~ ') end) as _sw_checked)',
             'keys': ['_sw_window_start'], 'outputs': outputs, 'duration': duration}) }}
{% endmacro %}

{% macro _sw_merge_window_sizes(macro_name, window) %}
  {#- The validated `window`: {'size', 'advance' (whole numbers: microseconds for
      intervals), 'kind': 'interval' | 'number'}. -#}
  {%- set rule = "{'size': <interval or number>, 'advance': <interval or number>} with 0 < advance <= size, both intervals (time panes) or both whole numbers (numeric panes)" -%}
  {%- if window is not mapping or window.keys() | list | sort != ['advance', 'size'] -%}
    {{ stream_windows._sw_fail(macro_name, 'window', rule, window) }}
  {%- endif -%}
  {%- set size = stream_windows._sw_parse_range(macro_name, "window['size']", window.size) -%}
  {%- set advance = stream_windows._sw_parse_range(macro_name, "window['advance']", window.advance) -%}
  {%- if size.kind != advance.kind or advance.size <= 0 or advance.size > size.size
         or (size.kind == 'number' and (size.size != (size.size | int) or advance.size != (advance.size | int))) -%}
    {{ stream_windows._sw_fail(macro_name, 'window', rule, window) }}
  {%- endif -%}
  {{ return({'size': size.size | int, 'advance': advance.size | int, 'kind': size.kind}) }}
{% endmacro %}
