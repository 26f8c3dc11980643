-- Independent check of the engine's averages, both ways: every seven-day window that a
-- later day closes (days are consecutive: the windows starting on day 1 to the last day
-- minus 7), computed in plain SQL, is in the weekly model with the same averages, and
-- the model holds no other window. An empty model fails; a NULL average on one side
-- only fails.
with days as (
    select * from {{ ref('stg_vega__seattle_daily_weather') }}
),

weekly_sql as (
    select
        day_number as window_start,
        avg(high_temp_c) over (order by day_number rows between current row and 6 following) as high_avg,
        avg(low_temp_c) over (order by day_number rows between current row and 6 following) as low_avg
    from days
),

last_day as (
    select max(day_number) as day_number from days
),

closed_sql as (
    select weekly_sql.*
    from weekly_sql
    cross join last_day
    where weekly_sql.window_start + 7 <= last_day.day_number
)

select
    w.high_temp_c_avg,
    s.high_avg,
    coalesce(w.window_start, s.window_start) as window_start
from {{ ref('weekly_temperature_single') }} as w
full outer join closed_sql as s on w.window_start = s.window_start
where
    w.window_start is null
    or s.window_start is null
    or not coalesce(abs(w.high_temp_c_avg - s.high_avg) <= 1e-9, w.high_temp_c_avg <=> s.high_avg)
    or not coalesce(abs(w.low_temp_c_avg - s.low_avg) <= 1e-9, w.low_temp_c_avg <=> s.low_avg)
