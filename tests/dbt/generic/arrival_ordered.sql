{#- Stream inputs arrive in time order: the tested time column never decreases
    along `arrival_order` (within `partition_by`, if given). Returns the rows whose
    time is earlier than the row that arrived just before them. The window macros
    rely on this; an out-of-order row fails the build instead of being misplaced. -#}
{% test arrival_ordered(model, column_name, arrival_order, partition_by=none) %}
{%- set partitions = [] if partition_by is none else ([partition_by] if partition_by is string else partition_by) -%}
with ordered as (
    select
        {{ arrival_order }} as arrival_position,
        {{ column_name }} as time_value,
        lag({{ column_name }}) over (
            {{ ('partition by ' ~ partitions | join(', ')) if partitions else '' }}
            order by {{ arrival_order }}
        ) as previous_time_value
    from {{ model }}
)

select * from ordered
where time_value < previous_time_value
{% endtest %}
