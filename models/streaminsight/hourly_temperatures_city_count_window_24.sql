-- Real data: per city, a count window over 24 distinct reading times (a day of hourly
-- readings, whatever the gaps: both cities miss 2010-03-14 03:00, so that window spans
-- 25 hours). One point row per window at its last reading time.
-- Scheduled runs build it incrementally, month partitions of point_at (README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ count_window_aggregate(
    relation=ref('stg_vega__hourly_temperatures'),
    time_column='reading_at',
    n=24,
    group_by='city',
    arrival_order='seq',
    aggregates={
        'min_temp_f_24': 'min(temp_f)',
        'max_temp_f_24': 'max(temp_f)',
        'avg_temp_f_24': 'avg(temp_f)',
    },
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
