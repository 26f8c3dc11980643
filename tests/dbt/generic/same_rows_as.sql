{#- The model holds exactly the rows of `other` (as a multiset), leaving out the
    `ignore` columns of both (such as time_partition, whose grain two ways of building
    the same rows may choose differently). Floating-point columns are compared rounded
    to `digits` decimals: two builds may sum a window's values in another order (a
    scheduled run's recomputed partition reads a bounded input), which moves the last
    bits of an average. Returns each row one side has more often than the other, with
    the side. -#}
{% test same_rows_as(model, other, ignore=[], digits=9) %}
{%- set compared = [] -%}
{%- for column in adapter.get_columns_in_relation(model) if column.name not in ignore -%}
  {%- if column.dtype | lower in ('double', 'float') -%}
    {%- do compared.append('round(' ~ column.name ~ ', ' ~ digits ~ ') as ' ~ column.name) -%}
  {%- else -%}
    {%- do compared.append(column.name) -%}
  {%- endif -%}
{%- endfor -%}
{#- No columns: the model is not built yet (`dbt compile` on a new catalog, or a
    selection that compiles the test without its model). The SQL compares every column
    but the ignored ones, unrounded; a `dbt test` or `dbt build` introspects the built
    model and rounds. -#}
{%- if not compared -%}
  {%- do compared.append(('* except (' ~ ignore | join(', ') ~ ')') if ignore else '*') -%}
{%- endif -%}
with model_rows as (
    select {{ compared | join(', ') }} from {{ model }}
),

other_rows as (
    select {{ compared | join(', ') }} from {{ other }}
)

select 'only in the model' as side, * from (select * from model_rows except all select * from other_rows) as extra
union all
select 'only in the other' as side, * from (select * from other_rows except all select * from model_rows) as missing
{% endtest %}
