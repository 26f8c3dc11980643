-- SQLstream: MIN/MAX/AVG per city over RANGE INTERVAL '1' DAY PRECEDING, one named
-- window for the three aggregates. AVG over the INTEGER temp returns an INTEGER,
-- truncated toward zero, as in the document (Denver 19:00: 38.5 -> 38).
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ range_window_aggregate(
    relation=ref('stg_sqlstream__weather_readings'),
    time_column='rowtime',
    range="INTERVAL '1' DAY",
    partition_by=['city'],
    aggregates={'wmin_temp': 'min(temp)', 'wmax_temp': 'max(temp)', 'wavg_temp': 'avg(temp)'},
    arrival_order='seq',
    columns=['seq', 'rowtime', 'city'],
    integer_avg=true,
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
