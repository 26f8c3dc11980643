-- An incremental model (append) that fails at run time when break_models is true.
{{ config(materialized='incremental', incremental_strategy='append') }}
select
    reading_id,
    value
from {{ ref('fixture_readings') }}
where {{ "raise_error('fixture_readings_by_id: broken input') is null" if var('break_models', false) else 'true' }}
{% if is_incremental() %}
    and reading_id > (select max(reading_id) from {{ this }})
{% endif %}
