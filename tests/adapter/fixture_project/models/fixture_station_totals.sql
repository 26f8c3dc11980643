-- A table model that fails at run time when the var break_models is true (the
-- adapter's tests break a rebuild on purpose and check the old rows survive).
{{ config(materialized='table') }}
select
    station,
    sum(value) as value_total
from {{ ref('fixture_readings') }}
where {{ "raise_error('fixture_station_totals: broken input') is null" if var('break_models', false) else 'true' }}
group by station
