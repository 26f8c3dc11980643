{% macro range_window_aggregate(relation, time_column, range, aggregates, partition_by=none, direction='preceding', ties='arrival', arrival_order=none, columns=none, bounds=none, final_only=false, integer_avg=false, tick=none, incremental=none) %}
  {{- stream_windows._sw_check_call('range_window_aggregate', ['relation', 'time_column', 'range', 'aggregates', 'partition_by', 'direction', 'ties', 'arrival_order', 'columns', 'bounds', 'final_only', 'integer_avg', 'tick', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('range_window_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), time_column, range, aggregates, partition_by, direction, ties, arrival_order, columns, stream_windows._sw_unfiltered(bounds), final_only, integer_avg, tick, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__range_window_aggregate(relation, time_column, range, aggregates, partition_by, direction, ties, arrival_order, columns, bounds, final_only, integer_avg, tick, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('range_window_aggregate')) }}
{% endmacro %}

{#- SQLstream's `RANGE INTERVAL 'x' <unit> PRECEDING|FOLLOWING` windowed aggregation
    as a SELECT over `relation`, one output row per input row (plus rowtime-bound rows
    when `bounds` is given). Semantics: docs/semantics.md, SQLstream section.

    ties='arrival' (default, streaming): the window of row r holds the rows with time
    in [r.time - x, r.time] that arrived at or before r (FOLLOWING: [r.time, r.time + x],
    r and the rows arriving after it). Spark's RANGE frame includes every peer of equal
    time, so the window is computed as two frames merged per aggregate:
      earlier  - RANGE BETWEEN x PRECEDING AND 1 tick PRECEDING over the partition,
      peers    - ROWS UNBOUNDED PRECEDING..CURRENT ROW over (partition, time) by arrival.
    Both are native Spark frames (segment tree), and the peer frame reuses the sort.
    ties='peers' is the plain SQL-standard frame.

    `incremental` builds the model batch by batch (macros/incremental): the lookback
    is the range itself, and FOLLOWING windows recompute the rows a range back from
    the latest processed time, whose windows were still open. Under dbt's microbatch
    (macros/incremental/_sw_microbatch.sql) a batch reads its rows and a range on the
    side the window reaches, and a FOLLOWING batch also rewrites the rows still open. -#}
{% macro spark__range_window_aggregate(relation, time_column, range, aggregates, partition_by, direction, ties, arrival_order, columns, bounds, final_only, integer_avg, tick, incremental) %}
  {%- set macro_name = 'range_window_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, time_column)) }}{%- endif -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if time_column is not string or not time_column -%}{{ stream_windows._sw_fail(macro_name, 'time_column', 'a column name', time_column) }}{%- endif -%}
  {%- set direction = direction | lower if direction is string else direction -%}
  {%- set ties = ties | lower if ties is string else ties -%}
  {{- stream_windows._sw_check_choice(macro_name, 'direction', direction, ['preceding', 'following']) -}}
  {{- stream_windows._sw_check_choice(macro_name, 'ties', ties, ['arrival', 'peers']) -}}
  {%- set window_range = stream_windows._sw_parse_range(macro_name, 'range', range) -%}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'relation': relation, 'duration': (window_range.size / 1000000) if window_range.kind == 'interval' else window_range.size}) -%}
  {%- set partitions = stream_windows._sw_as_list(macro_name, 'partition_by', partition_by) -%}
  {%- set passthrough = stream_windows._sw_as_list(macro_name, 'columns', columns) -%}
  {%- if arrival_order is not none and (arrival_order is not string or not arrival_order) -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column name', arrival_order) }}
  {%- endif -%}
  {%- if ties == 'arrival' and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order (such as seq) when ties='arrival'", arrival_order) }}
  {%- endif -%}
  {%- for agg in aggs if agg.function in ('first', 'last') and arrival_order is none -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', "a column giving arrival order for " ~ agg.function ~ "()", arrival_order) }}
  {%- endfor -%}
  {%- if final_only and direction != 'following' -%}
    {{ stream_windows._sw_fail(macro_name, 'final_only', "false unless direction='following' (PRECEDING results are final when emitted)", final_only) }}
  {%- endif -%}
  {%- if tick is not none and (window_range.kind != 'number' or not stream_windows._sw_is_number(tick) or tick <= 0) -%}
    {{ stream_windows._sw_fail(macro_name, 'tick', 'a number > 0, and only with a numeric range (a timestamp tick is 1 microsecond)', tick) }}
  {%- endif -%}
  {%- set wanted = [('time_column', time_column)] -%}
  {%- for column in partitions -%}{%- do wanted.append(('partition_by', column)) -%}{%- endfor -%}
  {%- if arrival_order -%}{%- do wanted.append(('arrival_order', arrival_order)) -%}{%- endif -%}
  {%- for agg in aggs if agg.column != '*' -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", agg.column)) -%}{%- endfor -%}
  {%- for column in passthrough -%}{%- do wanted.append(('columns', column)) -%}{%- endfor -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted, {'column': time_column, 'kind': window_range.kind}) -}}
  {%- set mask = '_sw_is_bound' if bounds is not none else none -%}
  {%- set source = stream_windows._sw_source_with_bounds(macro_name, relation, bounds, time_column, arrival_order, partitions, passthrough, wanted) -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {%- set reach = stream_windows._sw_reach(window_range.size if direction == 'preceding' else 0, window_range.size if direction == 'following' else 0) -%}
  {%- set spec = stream_windows._sw_incremental_spec(macro_name, incremental, time_column, window_range.kind) -%}
  {%- set plan = none -%}
  {%- set planned = none -%}
  {%- if spec is not none -%}
    {%- if arrival_order is none -%}{{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column giving arrival order (such as seq) for an incremental build (it tells new rows from processed ones)', arrival_order) }}{%- endif -%}
    {%- if passthrough and (time_column not in passthrough or arrival_order not in passthrough) -%}
      {{ stream_windows._sw_fail(macro_name, 'columns', 'a list holding the time column and the arrival order for an incremental build (' ~ time_column ~ ', ' ~ arrival_order ~ ')', passthrough) }}
    {%- endif -%}
    {#- Rowtime bounds are rows of the stream (a time and an arrival position): the
        plan reads them with the data, so a late bound is caught like a late row. -#}
    {%- set planned = stream_windows._sw_incremental_plan(macro_name, spec, source if bounds is not none else relation, arrival_order, partitions, reach) -%}
    {%- set plan = none if planned.full or planned.nothing_new else planned -%}
    {%- if plan is not none -%}
      {%- set source = '(select * from ' ~ source ~ ' as _sw_all where ' ~ stream_windows._sw_key_from(plan, plan.input_from_key) ~ (' and not ' ~ plan.exclude if plan.exclude else '') ~ ')' -%}
    {%- endif -%}
  {%- endif -%}

  {%- set key = 'unix_micros(cast(' ~ time_column ~ ' as timestamp))' if window_range.kind == 'interval' else time_column -%}
  {%- set size = window_range.size -%}
  {%- set whole_stream = source -%}
  {%- set batch_rows = none -%}
  {%- if microbatch is not none -%}
    {%- if window_range.kind != 'interval' or microbatch.event_time | lower != time_column | lower -%}
      {{ stream_windows._sw_compile_error(macro_name ~ "() in model " ~ model.name ~ " (incremental_strategy='microbatch'): configure event_time='" ~ time_column
          ~ "', the time column, and give an interval range (dbt's batches are spans of time); got event_time=" ~ microbatch.event_time ~ ", range " ~ range ~ ".") }}
    {%- endif -%}
    {%- if passthrough -%}{{ stream_windows._sw_batch_output(macro_name, microbatch, passthrough) }}{%- endif -%}
    {%- if microbatch.start is not none -%}
      {#- This batch's rows (and, FOLLOWING, the rows still open before it), from the
          input a range before them (PRECEDING) or after them (FOLLOWING). -#}
      {%- set batch = stream_windows._sw_batch_plan(microbatch, reach, source, key) -%}
      {%- set rewrite_from = batch.rewrite_from -%}
      {%- set source = '(select * from ' ~ source ~ ' as _sw_all where ' ~ batch.read ~ ')' -%}
      {%- set batch_rows = stream_windows._sw_batch_rows(macro_name, microbatch, rewrite_from, arrival_order) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set step = 1 if window_range.kind == 'interval' else (tick if tick is not none else 1) -%}
  {%- set partition_sql = partitions | join(', ') -%}
  {%- set over_partition = ('partition by ' ~ partition_sql ~ ' ') if partitions else '' -%}
  {%- set internal = ['_sw_key'] -%}
  {%- set outputs = [] -%}
  {%- set split = ties == 'arrival' -%}
  {#- Where arrival decides a result, a repeated arrival position is refused: the
      streaming ties, an ordered aggregate, a scheduled run (it tells new rows from
      processed ones). SQL peers with order-free aggregates read no arrival order. -#}
  {%- set arrival_decides = split or (aggs | selectattr('ordered') | list | length > 0) or spec is not none or microbatch -%}
  {%- set has_other_times = size >= step -%}

  {%- set inner = [] -%}
  {%- for agg in aggs -%}
    {%- set x = stream_windows._sw_input_expr(agg, mask) -%}
    {%- if not split or not has_other_times -%}
      {%- set column = '_sw_' ~ agg.name -%}
      {%- do inner.append(stream_windows._sw_window_expr(agg, x, arrival_order, integer_avg, '_sw_w_peers' if split else '_sw_w', mask) ~ ' as ' ~ column) -%}
      {%- do internal.append(column) -%}
      {%- set expr = column -%}
    {%- else -%}
      {%- set a = {} -%}
      {%- set b = {} -%}
      {%- for part_name, part_sql in stream_windows._sw_window_parts(agg, x, arrival_order, mask) -%}
        {%- set a_col = '_sw_' ~ agg.name ~ '__times_' ~ part_name -%}
        {%- set b_col = '_sw_' ~ agg.name ~ '__peers_' ~ part_name -%}
        {%- do inner.append(part_sql ~ ' over _sw_w_times as ' ~ a_col) -%}
        {%- do inner.append(part_sql ~ ' over _sw_w_peers as ' ~ b_col) -%}
        {%- do internal.extend([a_col, b_col]) -%}
        {%- do a.update({part_name: a_col}) -%}
        {%- do b.update({part_name: b_col}) -%}
      {%- endfor -%}
      {%- set expr = stream_windows._sw_merge_parts(agg, a, b, integer_avg) -%}
    {%- endif -%}
    {%- if mask -%}{%- set expr = 'case when not ' ~ mask ~ ' then ' ~ expr ~ ' end' -%}{%- endif -%}
    {%- if loop.first and arrival_order and arrival_decides -%}
      {#- Rows of one time and one arrival position in a partition: which arrived first?
          Checked over the peers' window (partition and time, by arrival). -#}
      {%- do inner.append(stream_windows._sw_repeated_arrival(arrival_order, partitions + ['_sw_key'], arrival_order) ~ ' as _sw_repeated_arrival') -%}
      {%- do internal.append('_sw_repeated_arrival') -%}
      {%- set expr = stream_windows._sw_refuse_repeated_arrival(macro_name, '_sw_repeated_arrival', expr, partitions, arrival_order) -%}
    {%- endif -%}
    {%- do outputs.append(expr ~ ' as ' ~ agg.name) -%}
  {%- endfor -%}

  {%- if direction == 'preceding' -%}
    {%- set frame_all = 'range between ' ~ size ~ ' preceding and current row' -%}
    {%- set frame_times = 'range between ' ~ size ~ ' preceding and ' ~ step ~ ' preceding' -%}
    {%- set frame_peers = 'rows between unbounded preceding and current row' -%}
  {%- else -%}
    {%- set frame_all = 'range between current row and ' ~ size ~ ' following' -%}
    {%- set frame_times = 'range between ' ~ step ~ ' following and ' ~ size ~ ' following' -%}
    {%- set frame_peers = 'rows between current row and unbounded following' -%}
  {%- endif -%}
  {%- set windows = [] -%}
  {%- if split -%}
    {%- do windows.append('_sw_w_peers as (partition by ' ~ (partitions + ['_sw_key']) | join(', ') ~ ' order by ' ~ arrival_order ~ ' ' ~ frame_peers ~ ')') -%}
    {%- if has_other_times -%}
      {%- do windows.append('_sw_w_times as (' ~ over_partition ~ 'order by _sw_key ' ~ frame_times ~ ')') -%}
    {%- endif -%}
  {%- else -%}
    {%- do windows.append('_sw_w as (' ~ over_partition ~ 'order by _sw_key ' ~ frame_all ~ ')') -%}
  {%- endif -%}

  {%- if direction == 'following' -%}
    {#- Final once the stream (data or a bound, any partition) is past r.time + x. -#}
    {%- set stream_time = '(select max(' ~ key ~ ') from ' ~ whole_stream ~ ' as _sw_stream)' -%}
    {%- do outputs.append('case when not ' ~ (mask or 'false') ~ ' then ' ~ stream_time ~ ' > _sw_key + ' ~ size ~ ' end as is_final') -%}
  {%- endif -%}
  {%- if mask -%}
    {%- do outputs.append(mask ~ ' as is_bound') -%}
    {%- do internal.append(mask) -%}
  {%- endif -%}
  {%- if spec is not none -%}{%- do outputs.append(stream_windows._sw_incremental_partition_column(spec)) -%}{%- endif -%}
  {%- if microbatch is not none -%}{%- do outputs.append(stream_windows._sw_batch_partition_column(microbatch)) -%}{%- endif -%}
  {%- set kept = [] -%}
  {%- if final_only -%}{%- do kept.append('is_final is not false') -%}{%- endif -%}
  {%- if plan is not none -%}{%- do kept.append(plan.key ~ ' >= ' ~ plan.from_key) -%}{%- endif -%}
  {%- if batch_rows is not none -%}{%- do kept.append(batch_rows) -%}{%- endif -%}

{%- if planned is not none %}
{{ stream_windows._sw_plan_comment(planned) }}
{{ stream_windows._sw_nothing_new_open(planned) }}
{%- endif %}
{%- if kept %}
select * from (
{%- endif %}
select
    {{ (passthrough | join(', ')) if passthrough else '* except (' ~ internal | join(', ') ~ ')' }},
    {{ outputs | join(',\n    ') }}
from (
    select
        _sw_source.*,
        {{ inner | join(',\n        ') }}
    from (select *, {{ key }} as _sw_key from {{ source }} as _sw_input) as _sw_source
    window
        {{ windows | join(',\n        ') }}
) as _sw_windowed
{%- if kept %}
) as _sw_result
where {{ kept | join(' and ') }}
{%- endif %}
{{ stream_windows._sw_nothing_new_close(planned) }}
{% endmacro %}

{% macro _sw_source_with_bounds(macro_name, relation, bounds, time_column, arrival_order, partitions, passthrough, wanted) %}
  {#- The input, or the input with the rowtime bounds appended as rows that carry
      only a time (and an arrival position): NULL everywhere else, flagged
      _sw_is_bound. The union needs the input's columns: the passthrough `columns`,
      or those of a ref()/source() relation. A NULL time (input or bound) fails the
      query, naming the row. -#}
  {%- if bounds is none -%}
    {{ return(stream_windows._sw_checked_time(macro_name, relation, partitions, time_column, arrival_order)) }}
  {%- endif -%}
  {%- set bounds = stream_windows._sw_checked_time(macro_name, bounds, [], time_column, arrival_order) -%}
  {%- if passthrough -%}
    {%- set names = [] -%}
    {%- for argument, column in wanted if column not in names -%}{%- do names.append(column) -%}{%- endfor -%}
  {%- elif stream_windows._sw_is_catalog_relation(relation) -%}
    {%- set names = (adapter.get_columns_in_relation(relation) | map(attribute='name') | list) if execute else [time_column] -%}
  {%- else -%}
    {{ stream_windows._sw_fail(macro_name, 'columns', "the list of columns to pass through when `bounds` is given and `relation` is not a ref() or source()", passthrough) }}
  {%- endif -%}
  {%- set data_cols = [] -%}
  {%- set bound_cols = [] -%}
  {%- for name in names -%}
    {%- do data_cols.append(name) -%}
    {%- do bound_cols.append(name if name in (time_column, arrival_order) else 'null as ' ~ name) -%}
  {%- endfor -%}
  {{ return('(select ' ~ data_cols | join(', ') ~ ', false as _sw_is_bound from ' ~ stream_windows._sw_checked_time(macro_name, relation, partitions, time_column, arrival_order)
            ~ ' union all select ' ~ bound_cols | join(', ') ~ ', true as _sw_is_bound from ' ~ bounds ~ ')') }}
{% endmacro %}
