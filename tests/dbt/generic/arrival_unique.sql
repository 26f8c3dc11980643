{#- Each row has its own arrival position: the tested arrival-order column holds no
    value twice (within `partition_by`, if given). Returns each repeated value with its
    count. Two rows at one position make ambiguous windows (which arrived first?):
    range_window_aggregate, rows_window_aggregate and fenl_aggregate's per-row windows
    refuse them in their query; count_window_aggregate and partial_aggregate do not
    check (a count window sorts start times, partial aggregates group by pane: a check
    would cost a sort of its own), nor do Fenl's cron windows, so test their inputs
    with this. -#}
{% test arrival_unique(model, column_name, partition_by=none) %}
{%- set partitions = [] if partition_by is none else ([partition_by] if partition_by is string else partition_by) -%}
select
    {%- for column in partitions %}
    {{ column }},
    {%- endfor %}
    {{ column_name }} as arrival_position,
    count(*) as rows_at_position
from {{ model }}
where {{ column_name }} is not null
group by {% for column in partitions %}{{ column }}, {% endfor %}{{ column_name }}
having count(*) > 1
{% endtest %}
