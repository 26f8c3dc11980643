{% macro rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by=none, columns=none, integer_avg=false) %}
  {{ return(adapter.dispatch('rows_window_aggregate', 'stream_windows')(relation, rows, aggregates, arrival_order, partition_by, columns, integer_avg)) }}
{% endmacro %}

{#- SQLstream's `ROWS n PRECEDING`: the current row and the n rows that arrived
    before it in its partition, i.e. SQL's ROWS BETWEEN n PRECEDING AND CURRENT ROW.
    (The SQLstream document's prose says "the latest 10 rows" for ROWS 10 PRECEDING;
    no example decides and the SQL standard wins: n + 1 rows.) Rowtime bounds have no
    effect on row windows. -#}
{% macro default__rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by, columns, integer_avg) %}
  {%- set macro_name = 'rows_window_aggregate' -%}
  {%- if relation is none -%}{{ _sw_fail(macro_name, 'relation', 'a relation (ref, source or CTE name)', relation) }}{%- endif -%}
  {%- if not _sw_is_number(rows) or rows != (rows | int) or rows < 0 -%}
    {{ _sw_fail(macro_name, 'rows', 'a whole number of rows >= 0 (ROWS takes a row count, not an interval)', rows) }}
  {%- endif -%}
  {%- if arrival_order is not string or not arrival_order -%}
    {{ _sw_fail(macro_name, 'arrival_order', 'a column giving arrival order (such as seq)', arrival_order) }}
  {%- endif -%}
  {%- set aggs = _sw_parse_aggregates(macro_name, aggregates, {'relation': relation}) -%}
  {%- set partitions = _sw_as_list(macro_name, 'partition_by', partition_by) -%}
  {%- set passthrough = _sw_as_list(macro_name, 'columns', columns) -%}
  {%- set wanted = [('arrival_order', arrival_order)] -%}
  {%- for column in partitions -%}{%- do wanted.append(('partition_by', column)) -%}{%- endfor -%}
  {%- for agg in aggs if agg.column != '*' -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", agg.column)) -%}{%- endfor -%}
  {%- for column in passthrough -%}{%- do wanted.append(('columns', column)) -%}{%- endfor -%}
  {{- _sw_check_columns_exist(macro_name, relation, wanted) -}}
  {%- set outputs = [] -%}
  {%- for agg in aggs -%}
    {%- do outputs.append(_sw_window_expr(agg, _sw_input_expr(agg, none), arrival_order, integer_avg, '_sw_w') ~ ' as ' ~ agg.name) -%}
  {%- endfor -%}
select
    {{ (passthrough | join(', ')) if passthrough else '*' }},
    {{ outputs | join(',\n    ') }}
from {{ relation }}
window _sw_w as (
    {{ ('partition by ' ~ partitions | join(', ')) if partitions else '' }}
    order by {{ arrival_order }}
    rows between {{ rows | int }} preceding and current row
)
{% endmacro %}
