{% macro merge_partial_aggregates(relation, group_by, aggregates) %}
  {{ return(adapter.dispatch('merge_partial_aggregates', 'stream_windows')(relation, group_by, aggregates)) }}
{% endmacro %}

{#- Odysseus' AGGREGATE over partial aggregates (the PRE_AGG -> AGG pipeline): merges
    any set of rows made by partial_aggregate (any panes, in any order) into one row
    per group with the final values, equal to the direct computation over the rows
    those panes hold (exactly for the exact functions; floating-point sums and
    (co-)moments up to rounding; the sketches within their error bounds).
    `aggregates` is the mapping given to partial_aggregate (or a subset of it). -#}
{% macro default__merge_partial_aggregates(relation, group_by, aggregates) %}
  {%- set macro_name = 'merge_partial_aggregates' -%}
  {%- if relation is none -%}{{ _sw_fail(macro_name, 'relation', 'a relation made by partial_aggregate (ref or CTE name)', relation) }}{%- endif -%}
  {%- set groups = _sw_as_list(macro_name, 'group_by', group_by) -%}
  {#- RATE's duration is carried by its states (the span of the merged panes). -#}
  {%- set aggs = _sw_parse_aggregates(macro_name, aggregates, {'sketches': true, 'duration': 'from the states'}) -%}
  {%- set wanted = [] -%}
  {%- for column in groups -%}{%- do wanted.append(('group_by', column)) -%}{%- endfor -%}
  {%- for agg in aggs -%}
    {%- for state in _sw_partial_state_names(agg) -%}{%- do wanted.append(("aggregates['" ~ agg.name ~ "']", state)) -%}{%- endfor -%}
  {%- endfor -%}
  {{- _sw_check_columns_exist(macro_name, relation, wanted) -}}
  {%- set over_group = '(partition by ' ~ groups | join(', ') ~ ')' if groups else '()' -%}
  {%- set helpers = [] -%}
  {%- set finals = [] -%}
  {%- for agg in aggs -%}
    {%- for helper, sql in _sw_partial_merge_helpers(agg, over_group) -%}{%- do helpers.append(sql ~ ' as ' ~ helper) -%}{%- endfor -%}
    {%- do finals.append(_sw_partial_merge_expr(agg) ~ ' as ' ~ agg.name) -%}
  {%- endfor -%}
select
    {{ (groups + finals) | join(',\n    ') }}
from (select *{{ (', ' ~ helpers | join(', ')) if helpers else '' }} from {{ relation }} as _sw_states) as _sw_centered
{%- if groups %}
group by {{ groups | join(', ') }}
{%- endif %}
{% endmacro %}
