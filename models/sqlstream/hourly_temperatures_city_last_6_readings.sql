-- Real data: per-city statistics over ROWS 5 PRECEDING, the reading and the five that
-- arrived before it in its city (SQL standard: n + 1 rows), whatever their times.
-- Scheduled runs build it incrementally, month partitions (see README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ rows_window_aggregate(
    relation=ref('stg_vega__hourly_temperatures'),
    rows=5,
    partition_by=['city'],
    arrival_order='seq',
    aggregates={
        'min_temp_f_6': 'min(temp_f)',
        'max_temp_f_6': 'max(temp_f)',
        'avg_temp_f_6': 'avg(temp_f)',
        'readings_6': 'count(*)',
        'first_reading_at_6': 'first(reading_at)',
    },
    incremental={'time_column': 'reading_at', 'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
