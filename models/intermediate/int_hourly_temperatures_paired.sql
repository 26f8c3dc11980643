-- Seattle's and San Francisco's readings of the same hour side by side (hours where
-- either city is missing keep a NULL, which CORR and COV leave out). A pair arrives
-- with its later reading: its arrival position is the larger of the two.
with readings as (
    select * from {{ ref('stg_vega__hourly_temperatures') }}
)

select
    reading_at,
    cast(date_trunc('month', reading_at) as date) as reading_month,
    max(seq) as seq,
    max(case when city = 'Seattle' then temp_f end) as seattle_temp_f,
    max(case when city = 'San Francisco' then temp_f end) as san_francisco_temp_f
from readings
group by reading_at
