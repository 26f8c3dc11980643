{#- Row-for-row equality of a model with an expected-output seed, matched on `key`.
    Returns one row per problem: a key missing from the model, a key the seed does
    not expect, a duplicated key, or a value that differs (numbers within
    `tolerance`, everything else exactly, NULL equal only to NULL). The columns
    compared are the expected seed's. -#}
{% test equals_expected(model, expected, key, tolerance=0.000001) %}
{%- set keys = [key] if key is string else key -%}
{%- set columns = adapter.get_columns_in_relation(expected) | map(attribute='name') | list -%}
{%- if execute and not columns -%}
  {{ exceptions.raise_compiler_error("equals_expected: the expected relation " ~ expected ~ " does not exist or has no columns; build its seed first (dbt build selects it with the model's tests).") }}
{%- endif -%}
{%- set values = [] -%}
{%- for column in columns if column not in keys -%}{%- do values.append(column) -%}{%- endfor -%}
{%- set join_on = [] -%}
{%- for k in keys -%}{%- do join_on.append('actual.' ~ k ~ ' <=> expected.' ~ k) -%}{%- endfor -%}

with actual as (
    select
        {{ columns | join(', ') }},
        count(*) over (partition by {{ keys | join(', ') }}) as _rows_with_key
    from {{ model }}
),

expected as (
    select
        {{ columns | join(', ') }},
        count(*) over (partition by {{ keys | join(', ') }}) as _rows_with_key
    from {{ expected }}
),

compared as (
    select
        {% for k in keys -%}
        coalesce(actual.{{ k }}, expected.{{ k }}) as {{ k }},
        {% endfor -%}
        case
            when actual._rows_with_key is null then 'missing from the model'
            when expected._rows_with_key is null then 'not in the expected seed'
            when actual._rows_with_key > 1 or expected._rows_with_key > 1 then 'duplicate key'
            else 'values differ'
        end as problem,
        actual._rows_with_key is not null
        and expected._rows_with_key is not null
        and actual._rows_with_key = 1
        and expected._rows_with_key = 1
        {% for column in values -%}
        and coalesce(
            actual.{{ column }} <=> expected.{{ column }}
            or abs(cast(actual.{{ column }} as double) - cast(expected.{{ column }} as double)) <= {{ tolerance }},
            false
        )
        {% endfor %} as is_equal
        {%- for column in values %},
        actual.{{ column }} as actual_{{ column }},
        expected.{{ column }} as expected_{{ column }}
        {%- endfor %}
    from actual
    full outer join expected
        on {{ join_on | join(' and ') }}
)

select * from compared
where not is_equal
{% endtest %}
