-- Real data: per city, Fenl's sliding(24, pred) window over the mild readings (50 F or
-- more): at every reading, the mean and maximum of the city's 24 latest mild readings
-- (NULL until there are 24: a Seattle winter has few), when the latest of them was
-- taken, and (repeated aggregation) the running mean of that sliding mean and the count
-- of readings that had one.
-- Scheduled runs build it incrementally, month partitions, with each city's 24 latest
-- mild readings before the run as context and the repeated stages as state.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    ref('stg_vega__hourly_temperatures'),
    entity='city',
    time_column='reading_at',
    arrival_order='seq',
    window=fenl_sliding(24, 'temp_f >= 50'),
    aggregates={
        'mild_mean_temp_f_24': 'mean(temp_f)',
        'mild_max_temp_f_24': 'max(temp_f)',
        'last_mild_reading_at': 'last(reading_at)',
        'mild_mean_temp_f_24_mean': 'mean(temp_f) | mean()',
        'readings_with_mild_mean': 'mean(temp_f) | count()',
    },
    incremental={'partition': 'month', 'late_rows': var('late_rows', 'error')},
) }}
