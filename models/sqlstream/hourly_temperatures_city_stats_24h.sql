-- Real data: per-city trailing 24-hour min/max/avg of the 2010 hourly temperatures.
-- Scheduled runs build it incrementally, month partitions (see README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ range_window_aggregate(
    relation=ref('stg_vega__hourly_temperatures'),
    time_column='reading_at',
    range="INTERVAL '24' HOUR",
    partition_by=['city'],
    aggregates={
        'min_temp_f_24h': 'min(temp_f)',
        'max_temp_f_24h': 'max(temp_f)',
        'avg_temp_f_24h': 'avg(temp_f)',
        'readings_24h': 'count(*)',
    },
    arrival_order='seq',
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
