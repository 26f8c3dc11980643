-- Independent check of the engine's averages: the mean of the seven days starting at
-- each window_start, computed in plain SQL, equals the weekly model's (days are consecutive).
with weekly_sql as (
    select
        day_number as window_start,
        avg(high_temp_c) over (order by day_number rows between current row and 6 following) as high_avg,
        avg(low_temp_c) over (order by day_number rows between current row and 6 following) as low_avg
    from {{ ref('stg_vega__seattle_daily_weather') }}
)

select
    w.window_start,
    w.high_temp_c_avg,
    s.high_avg
from {{ ref('weekly_temperature_single') }} as w
inner join weekly_sql as s on w.window_start = s.window_start
where abs(w.high_temp_c_avg - s.high_avg) > 1e-9 or abs(w.low_temp_c_avg - s.low_avg) > 1e-9
