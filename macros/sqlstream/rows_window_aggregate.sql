{% macro rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by=none, columns=none, integer_avg=false, incremental=none) %}
  {{- stream_windows._sw_check_call('rows_window_aggregate', ['relation', 'rows', 'aggregates', 'arrival_order', 'partition_by', 'columns', 'integer_avg', 'incremental'], varargs, kwargs) -}}
  {{ return(adapter.dispatch('rows_window_aggregate', 'stream_windows')(stream_windows._sw_unfiltered(relation), rows, aggregates, arrival_order, partition_by, columns, integer_avg, incremental)) }}
{% endmacro %}

{#- Any adapter but Spark's: the SQL this package writes is Spark SQL. -#}
{% macro default__rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by, columns, integer_avg, incremental) %}
  {{ return(stream_windows._sw_unsupported_adapter('rows_window_aggregate')) }}
{% endmacro %}

{#- SQLstream's `ROWS n PRECEDING`: the current row and the n rows that arrived
    before it in its partition, i.e. SQL's ROWS BETWEEN n PRECEDING AND CURRENT ROW.
    (The SQLstream document's prose says "the latest 10 rows" for ROWS 10 PRECEDING;
    no example decides and the SQL standard wins: n + 1 rows.) Rowtime bounds have no
    effect on row windows.

    Under dbt's microbatch (macros/incremental/_sw_microbatch.sql) a batch writes the
    rows whose event_time is in the batch; their windows are counted in arrivals,
    which reach any time, so it reads the whole input. -#}
{% macro spark__rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by, columns, integer_avg, incremental) %}
  {%- set macro_name = 'rows_window_aggregate' -%}
  {%- if not execute -%}{{ return(stream_windows._sw_parse_only(incremental, none)) }}{%- endif -%}
  {%- if relation is none -%}{{ stream_windows._sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if not stream_windows._sw_is_number(rows) or rows != (rows | int) or rows < 0 -%}
    {{ stream_windows._sw_fail(macro_name, 'rows', 'a whole number of rows >= 0 (ROWS takes a row count, not an interval)', rows) }}
  {%- endif -%}
  {%- if arrival_order is not string or not arrival_order -%}
    {{ stream_windows._sw_fail(macro_name, 'arrival_order', 'a column giving arrival order (such as seq)', arrival_order) }}
  {%- endif -%}
  {%- set aggs = stream_windows._sw_parse_aggregates(macro_name, aggregates, {'relation': relation}) -%}
  {%- set partitions = stream_windows._sw_as_list(macro_name, 'partition_by', partition_by) -%}
  {%- set passthrough = stream_windows._sw_as_list(macro_name, 'columns', columns) -%}
  {%- set wanted = [('arrival_order', arrival_order)] -%}
  {%- for column in partitions -%}{%- do wanted.append(('partition_by', column)) -%}{%- endfor -%}
  {%- for agg in aggs if agg.column != '*' -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", agg.column)) -%}{%- endfor -%}
  {%- for column in passthrough -%}{%- do wanted.append(('columns', column)) -%}{%- endfor -%}
  {%- set microbatch = stream_windows._sw_microbatch(macro_name, incremental) -%}
  {%- if microbatch is not none -%}
    {%- do wanted.append(('event_time', microbatch.event_time)) -%}
    {%- if passthrough -%}{{ stream_windows._sw_batch_output(macro_name, microbatch, passthrough) }}{%- endif -%}
  {%- endif -%}
  {%- set batch_rows = none -%}
  {%- if microbatch is not none and microbatch.start is not none -%}
    {%- set batch_rows = stream_windows._sw_batch_rows(macro_name, microbatch, microbatch.start, arrival_order) -%}
  {%- endif -%}
  {%- set spec = stream_windows._sw_incremental_spec(macro_name, incremental, none, none) -%}
  {%- if spec is not none -%}
    {%- do wanted.append(("incremental['time_column']", spec.time_column)) -%}
    {%- if passthrough and (spec.time_column not in passthrough or arrival_order not in passthrough) -%}
      {{ stream_windows._sw_fail(macro_name, 'columns', 'a list holding the time column and the arrival order for an incremental build (' ~ spec.time_column ~ ', ' ~ arrival_order ~ ')', passthrough) }}
    {%- endif -%}
  {%- endif -%}
  {{- stream_windows._sw_check_columns_exist(macro_name, relation, wanted) -}}
  {%- set planned = stream_windows._sw_incremental_plan(macro_name, spec, relation, arrival_order, partitions, stream_windows._sw_reach(none)) if spec is not none else none -%}
  {%- set plan = planned if planned is not none and not planned.full and not planned.nothing_new else none -%}
  {%- if plan is not none -%}
    {#- The recomputed partitions, and before them the n rows each partition's window
        reaches back to: the latest by arrival among the rows not recomputed. -#}
    {%- set relation = stream_windows._sw_counted_context(relation, plan, spec, partitions, rows | int, 'rows', 'row_number() over (' ~ ('partition by ' ~ partitions | join(', ') ~ ' ' if partitions else '') ~ 'order by ' ~ arrival_order ~ ' desc)') -%}
  {%- endif -%}
  {%- set outputs = [] -%}
  {%- for agg in aggs -%}
    {%- set expr = stream_windows._sw_window_expr(agg, stream_windows._sw_input_expr(agg, none), arrival_order, integer_avg, '_sw_w') -%}
    {%- if loop.first -%}
      {#- Rows of one arrival position in a partition: which one is in the window? -#}
      {%- set expr = stream_windows._sw_refuse_repeated_arrival(macro_name, stream_windows._sw_repeated_arrival(arrival_order, partitions, arrival_order),
          expr, partitions, arrival_order) -%}
    {%- endif -%}
    {%- do outputs.append(expr ~ ' as ' ~ agg.name) -%}
  {%- endfor -%}
  {%- if spec is not none -%}{%- do outputs.append(stream_windows._sw_incremental_partition_column(spec)) -%}{%- endif -%}
  {%- if microbatch is not none -%}{%- do outputs.append(stream_windows._sw_batch_partition_column(microbatch)) -%}{%- endif -%}
  {%- set kept = [plan.key ~ ' >= ' ~ plan.from_key] if plan is not none else [] -%}
  {%- if batch_rows is not none -%}{%- do kept.append(batch_rows) -%}{%- endif -%}
{%- if planned is not none %}
{{ stream_windows._sw_plan_comment(planned) }}
{{ stream_windows._sw_nothing_new_open(planned) }}
{%- endif %}
{%- if kept %}
select * from (
{%- endif %}
select
    {{ (passthrough | join(', ')) if passthrough else '*' }},
    {{ outputs | join(',\n    ') }}
from {{ relation }}
window _sw_w as (
    {{ ('partition by ' ~ partitions | join(', ')) if partitions else '' }}
    order by {{ arrival_order }}
    rows between {{ rows | int }} preceding and current row
)
{%- if kept %}
) as _sw_result
where {{ kept | join(' and ') }}
{%- endif %}
{{ stream_windows._sw_nothing_new_close(planned) }}
{% endmacro %}
