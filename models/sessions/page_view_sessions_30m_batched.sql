-- page_view_sessions_30m built by dbt's microbatch: the same rows (a data test compares
-- them). A session's row is placed in the batch of its first view (window_start); a
-- batch reads the views from the earliest session its views can still join, and leaves
-- out the views of the written sessions that started before that. Yearly batches, for
-- the reason hourly_temperatures_city_stats_24h_batched gives (a build from `begin` runs
-- every batch up to today); tests/incremental/test_microbatch.py builds sessions daily.
{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='window_start',
          batch_size='year', begin='2024-01-01', partition_by=['time_partition']) }}
{{ session_window_aggregate(
    relation=ref('stg_clickstream__page_views'),
    time_column='viewed_at',
    gap="INTERVAL '30' MINUTE",
    partition_by='user_id',
    arrival_order='view_id',
    aggregates={
        'landing_page': 'first(page)',
        'exit_page': 'last(page)',
        'pages': 'nest(page)',
        'total_dwell_ms': 'sum(dwell_ms)',
        'views_per_second': 'rate(*)',
    },
) }}
