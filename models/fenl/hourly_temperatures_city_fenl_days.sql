-- Real data: per city, Fenl's daily cron window (`since(daily)`): one row per city and
-- UTC day of 2010 with the day's mean, maximum and count of hourly readings and its
-- first temperature; a day without readings gives count 0 and NULL for the others.
-- Scheduled runs build it incrementally, month partitions of period_start: a run
-- recomputes the days from the one holding the latest reading it had seen.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    ref('stg_vega__hourly_temperatures'),
    entity='city',
    time_column='reading_at',
    arrival_order='seq',
    window=fenl_since(period='daily'),
    aggregates={
        'mean_temp_f': 'mean(temp_f)',
        'max_temp_f': 'max(temp_f)',
        'readings': 'count(*)',
        'first_temp_f': 'first(temp_f)',
    },
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
