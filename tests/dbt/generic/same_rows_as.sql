{#- The model holds exactly the rows of `other` (as a multiset), leaving out the
    `ignore` columns of both (such as time_partition, whose grain two ways of building
    the same rows may choose differently). Returns each row one side has more often
    than the other, with the side. -#}
{% test same_rows_as(model, other, ignore=[]) %}
{%- set left_out = (' except (' ~ ignore | join(', ') ~ ')') if ignore else '' -%}
with model_rows as (
    select *{{ left_out }} from {{ model }}
),

other_rows as (
    select *{{ left_out }} from {{ other }}
)

select 'only in the model' as side, * from (select * from model_rows except all select * from other_rows) as extra
union all
select 'only in the other' as side, * from (select * from other_rows except all select * from model_rows) as missing
{% endtest %}
