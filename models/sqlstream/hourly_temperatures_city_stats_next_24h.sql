-- Real data: per-city min/max/avg over the next 24 hours (RANGE ... FOLLOWING).
-- A result is final once the input has passed reading_at + 24h, so the readings of
-- the last day of 2010 come out with is_final = false.
-- Scheduled runs build it incrementally, month partitions (see README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ range_window_aggregate(
    relation=ref('stg_vega__hourly_temperatures'),
    time_column='reading_at',
    range="INTERVAL '24' HOUR",
    direction='following',
    partition_by=['city'],
    aggregates={
        'min_temp_f_next_24h': 'min(temp_f)',
        'max_temp_f_next_24h': 'max(temp_f)',
        'avg_temp_f_next_24h': 'avg(temp_f)',
    },
    arrival_order='seq',
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
