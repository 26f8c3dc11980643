-- Once all windows are full, 'all' and 'single' emit the same windows and averages.
with all_full as (
    select window_start, row_count, emitted_at, high_temp_c_avg
    from {{ ref('weekly_temperature_all') }}
    where window_start >= 1
),

single_windows as (
    select window_start, row_count, emitted_at, high_temp_c_avg
    from {{ ref('weekly_temperature_single') }}
)

(select * from all_full except select * from single_windows)
union all
(select * from single_windows except select * from all_full)
