-- Real data: per city, Fenl's since(pred) window closed by each day's last hourly
-- reading (23:00 UTC): at every reading, the day's running mean, maximum, count and
-- first temperature; repeated aggregation keeps the best running mean so far and the
-- running mean of the first temperatures.
-- Scheduled runs build it incrementally, month partitions, each city's open day and
-- running stages carried as state (README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    ref('stg_vega__hourly_temperatures'),
    entity='city',
    time_column='reading_at',
    arrival_order='seq',
    window=fenl_since('hour(reading_at) = 23'),
    aggregates={
        'day_mean_temp_f': 'mean(temp_f)',
        'day_max_temp_f': 'max(temp_f)',
        'day_readings': 'count(*)',
        'day_first_temp_f': 'first(temp_f)',
        'best_day_mean_so_far': 'mean(temp_f) | max()',
        'day_first_temp_f_mean': 'first(temp_f) | mean()',
    },
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
