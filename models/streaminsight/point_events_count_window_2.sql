-- StreamInsight: CountByStartTimeWindow(2) over the point events, with built-in
-- aggregates (generated Spark SQL). Two events at the same start time count once, so
-- the first two windows hold three events each.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ count_window_aggregate(
    relation=ref('stg_streaminsight__point_events'),
    time_column='start_time',
    n=2,
    arrival_order='seq',
    aggregates={'reading_sum': 'sum(reading)', 'first_event': 'first(event_name)', 'last_event': 'last(event_name)'},
    incremental={'partition': 10, 'late_rows': var('late_rows', 'error')},
) }}
