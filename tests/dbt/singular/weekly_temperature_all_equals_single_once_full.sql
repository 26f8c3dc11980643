-- Once all windows are full, 'all' and 'single' emit the same windows and averages.
with all_full as (
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from {{ ref('weekly_temperature_all') }}
    where window_start >= 1
),

single_windows as (
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from {{ ref('weekly_temperature_single') }}
),

only_in_all as (
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from all_full
    except
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from single_windows
),

only_in_single as (
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from single_windows
    except
    select
        window_start,
        row_count,
        emitted_at,
        high_temp_c_avg
    from all_full
)

select
    'only in all' as side,
    window_start
from only_in_all
union all
select
    'only in single' as side,
    window_start
from only_in_single
