-- Real data: hourly_temperatures_city_count_window_24 built by dbt's microbatch: the
-- same rows (a data test compares them). A window's row is placed in the batch of its
-- point_at; a batch reads each city's 23 reading times before it, and rewrites the
-- batch holding a city's provisional last window when new readings make it final.
-- Yearly batches, for the reason hourly_temperatures_city_stats_24h_batched gives.
{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='point_at',
          batch_size='year', begin='2010-01-01', partition_by=['time_partition']) }}
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
) }}
