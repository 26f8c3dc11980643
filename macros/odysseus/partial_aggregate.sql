{% macro partial_aggregate(relation, group_by, pane, aggregates, arrival_order=none, incremental=none) %}
  {{- stream_windows._sw_check_call('partial_aggregate', ['relation', 'group_by', 'pane', 'aggregates', 'arrival_order', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('partial_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), group_by, pane, aggregates, arrival_order, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__partial_aggregate(relation, group_by, pane, aggregates, arrival_order, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('partial_aggregate')) }}
{% endmacro %}

{#- Odysseus' AGGREGATE with outputPA = true (docs/semantics.md, Odysseus section): one
    row per group and pane holding the mergeable partial states of every aggregate
    (macros/aggregates/_sw_partial_aggregates.sql), to be merged by
    merge_partial_aggregates over any set of panes.

    `pane` is a mapping {'time_column': c, 'size': s}: tumbling panes of an interval
    ('10 minutes', "INTERVAL '1' HOUR", units microsecond to week) over a timestamp,
    or of a number over a numeric column, aligned on multiples of the size (epoch
    for timestamps), output as pane_start (inclusive) and pane_end (exclusive); or
    a column name already holding a pane key, passed through; or none (one pane).

    incremental={'partition': 'day' | 'month' | a number, 'late_rows': ...} (a time pane and
    arrival_order needed) builds the pane states in scheduled runs
    (macros/incremental/_sw_incremental.sql), partitioned by the day (or bucket) of
    pane_start: the states are the model's state between runs, and a merge over them
    reads panes, not input rows. A pane is closed once the input has passed its end,
    so a run recomputes only the panes from the one holding W (the latest time the
    input had at the last run) on, from their own rows; W and S come from the input
    (the states show no arrival position).

    Under dbt's microbatch (event_time='pane_start', a time pane) a batch writes its
    panes, and rewrites the batch of a pane that starts before it and ends in it. -#}
{% macro spark__partial_aggregate(relation, group_by, pane, aggregates, arrival_order, incremental) %}
  {%- set macro_name = 'partial_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, pane.get('time_column') if pane is mapping else none)) }}{%- endif -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- set groups = stream_windows._sw_as_list(macro_name, 'group_by', group_by) -%}
  {%- if arrival_order is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column name', arrival_order) }}
  {%- endif -%}
  {%- set paning = stream_windows._sw_pane(macro_name, pane) -%}
  {#- The reach both modes plan from (time or numeric panes; count panes have none): a
      pane is open while the stream is inside it. -#}
  {%- set pane_size = (paning.size.size | int if paning.size.kind == 'interval' else paning.size.size) if paning.size is defined else none -%}
  {%- set reach = stream_windows._sw_reach(0, pane_size, grid={'every': pane_size, 'size': pane_size}) if pane_size is not none else none -%}
  {%- if incremental is not none and paning.size is not defined -%}
    {{ stream_windows._sw_fail(macro_name, 'pane', "a time pane {'time_column': <column>, 'size': <interval or number>} for an incremental build (its panes close as time passes)", pane) }}
  {%- endif -%}
  {%- set spec = stream_windows._sw_incremental_spec(macro_name, incremental, pane.time_column, paning.size.kind) if incremental is not none else none -%}
  {%- if spec is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for an incremental build (it tells new rows from processed ones)", arrival_order) }}
  {%- endif -%}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'relation': relation, 'sketches': true, 'duration': paning.duration}) -%}
  {%- set wanted = [] -%}
  {%- for column in groups -%}{%- do wanted.append(('group_by', column)) -%}{%- endfor -%}
  {%- for column in paning.columns -%}{%- do wanted.append(('pane', column)) -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do wanted.append(('arrival_order', arrival_order)) -%}{%- endif -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted) -}}
  {%- set states = [] -%}
  {%- for agg in aggs -%}
    {%- for state, sql in stream_windows._sw_partial_states(agg, stream_windows._sw_input_expr(agg, none), arrival_order, paning) -%}
      {%- do states.append(sql ~ ' as ' ~ agg.name ~ '__' ~ state) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set keys = groups + paning['keys'] -%}
  {%- set batch = none -%}
  {%- if microbatch is not none -%}
    {%- if paning.size is not defined or paning.size.kind != 'interval' or microbatch.event_time | lower != 'pane_start' -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='pane_start' and a time pane {'time_column': <timestamp column>, 'size': <interval>} (dbt's batches are spans of time); got event_time="
          ~ microbatch.event_time ~ ", pane " ~ pane ~ ".") }}
    {%- endif -%}
    {%- do states.append(stream_windows._sw_batch_partition_column(microbatch, 'timestamp_micros(_sw_pane_start)')) -%}
    {%- if microbatch.start is not none -%}
      {#- The batch's panes, and the pane that started before it and ends in it (its
          batch is rewritten): whole, from their own rows. A row with a NULL time
          passes the bounds into a NULL pane, which fails the batch. -#}
      {%- set key = stream_windows._sw_batch_key(pane.time_column) -%}
      {%- set planned_batch = stream_windows._sw_batch_plan(microbatch, reach, relation, key) -%}
      {%- set rewrite_from = planned_batch.rewrite_from -%}
      {%- set batch = {'read': planned_batch.read,
                       'rows': stream_windows._sw_batch_rows(macro_name, microbatch, rewrite_from, none, 'timestamp_micros(_sw_pane_start)')} -%}
    {%- endif -%}
  {%- endif -%}
  {%- set plan = none -%}
  {%- set planned = none -%}
  {%- if spec is not none -%}
    {#- The pane holding W starts after W - size: recompute from that partition on. -#}
    {%- set planned = stream_windows._sw_incremental_plan(macro_name, spec, relation, arrival_order, groups, reach, 'input') -%}
    {%- set plan = none if planned.full or planned.nothing_new else planned -%}
    {%- do states.append(stream_windows._sw_incremental_partition_column(spec, 'timestamp_micros(_sw_pane_start)' if spec.kind == 'interval' else '_sw_pane_start')) -%}
  {%- endif -%}
{%- if planned is not none %}
{{ stream_windows._sw_plan_comment(planned) }}
{{ stream_windows._sw_nothing_new_open(planned) }}
{%- endif %}
select
    {{ (groups + paning.outputs + states) | join(',\n    ') }}
from (select *, {{ paning.derived | join(', ') if paning.derived else 'true as _sw_one_pane' }} from {{ relation }} as _sw_input) as _sw_paned
{%- if plan is not none %}
{#- Only whole panes: rows from the first recomputed partition's start on, in panes that start there. #}
where _sw_pane_start >= {{ plan.from_key }}
  and {{ stream_windows._sw_key_from(plan, plan.from_key) }}
  {%- if plan.exclude %}
  and not ({{ plan.exclude }})
  {%- endif %}
{%- endif %}
{%- if batch is not none %}
where {{ batch.read }}
{%- endif %}
{%- if keys %}
group by {{ keys | join(', ') }}
{%- endif %}
{%- if batch is not none %}
having {{ batch.rows }}
{%- endif %}
{{ stream_windows._sw_nothing_new_close(planned) }}
{% endmacro %}

{% macro _sw_pane(macro_name, pane) %}
  {#- {'keys': GROUP BY expressions, 'outputs': output columns, 'derived': columns
      computed on the input, 'columns': input columns used, 'window_from'/'window_to':
      the pane's span in RATE units (seconds for timestamps), 'duration': the pane
      size in RATE units or none (RATE is then refused)}. -#}
  {%- set rule = "{'time_column': <column>, 'size': <interval or number>}, a column name holding a pane key, or none" -%}
  {%- if pane is none -%}
    {{ return({'keys': [], 'outputs': [], 'derived': [], 'columns': [], 'duration': none}) }}
  {%- elif pane is string and pane -%}
    {{ return({'keys': [pane], 'outputs': [pane], 'derived': [], 'columns': [pane], 'duration': none}) }}
  {%- elif pane is mapping and pane.time_column is string and pane.time_column and pane.size is defined and pane.keys() | list | length == 2 -%}
    {%- set size = stream_windows._sw_parse_range(macro_name, "pane['size']", pane.size) -%}
    {%- if size.size <= 0 -%}{{ stream_windows._sw_fail(macro_name, "pane['size']", 'greater than 0', pane.size) }}{%- endif -%}
    {%- if size.kind == 'interval' -%}
      {%- set micros = 'unix_micros(cast(' ~ pane.time_column ~ ' as timestamp))' -%}
      {%- set start = '(' ~ micros ~ ' - pmod(' ~ micros ~ ', ' ~ size.size ~ '))' -%}
      {{ return({'keys': ['_sw_pane_start'], 'columns': [pane.time_column],
                 'derived': [start ~ ' as _sw_pane_start'],
                 'outputs': ['timestamp_micros(_sw_pane_start) as pane_start', 'timestamp_micros(_sw_pane_start + ' ~ size.size ~ ') as pane_end'],
                 'window_from': '_sw_pane_start / 1000000.0D', 'window_to': '(_sw_pane_start + ' ~ size.size ~ ') / 1000000.0D', 'size': size,
                 'duration': size.size / 1000000}) }}
    {%- else -%}
      {%- set start = '(' ~ pane.time_column ~ ' - pmod(' ~ pane.time_column ~ ', ' ~ size.size ~ '))' -%}
      {{ return({'keys': ['_sw_pane_start'], 'columns': [pane.time_column],
                 'derived': [start ~ ' as _sw_pane_start'],
                 'outputs': ['_sw_pane_start as pane_start', '_sw_pane_start + ' ~ size.size ~ ' as pane_end'],
                 'window_from': 'cast(_sw_pane_start as double)', 'window_to': 'cast(_sw_pane_start + ' ~ size.size ~ ' as double)', 'size': size,
                 'duration': size.size}) }}
    {%- endif -%}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, 'pane', rule, pane) }}
  {%- endif -%}
{% endmacro %}
