-- Real data: hourly_temperatures_city_stats_24h built by dbt's microbatch instead of the
-- macro's `incremental` argument: the same rows (a data test compares them). Each batch
-- reads its readings and the 24 hours before them, whatever dbt's lookback. Yearly
-- batches: the seed is the year 2010, and dbt runs every batch from `begin` to today
-- (daily batches would be some 6,000 queries, all but 365 empty); a live stream's model
-- would take batch_size='day' or 'hour'.
{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='reading_at',
          batch_size='year', begin='2010-01-01', partition_by=['time_partition']) }}
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
) }}
