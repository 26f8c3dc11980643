-- A clickstream sessionized: per user, a session is a run of page views each at most 30
-- minutes after the one before (a view exactly 30 minutes later still joins, as Spark's
-- session_window). One row per session; its window_end is 30 minutes after its last view.
-- Scheduled runs build it incrementally, day partitions of window_start (README "Incremental runs").
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
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
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
