-- Seattle's and San Francisco's readings of the same hour side by side (hours where
-- either city is missing keep a NULL, which CORR and COV leave out).
with readings as (
    select * from {{ ref('stg_vega__hourly_temperatures') }}
)

select
    reading_at,
    cast(date_trunc('month', reading_at) as date) as reading_month,
    cast(reading_at as date) as reading_date,
    max(case when city = 'Seattle' then temp_f end) as seattle_temp_f,
    max(case when city = 'San Francisco' then temp_f end) as san_francisco_temp_f
from readings
group by reading_at
