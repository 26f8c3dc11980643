-- SQLstream: MIN/MAX over RANGE INTERVAL '1' DAY PRECEDING, regardless of city.
-- Rows with the same rowtime that arrive later are not in the window (ties='arrival'),
-- which is why the first rows read 29/29, then 2/29.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ range_window_aggregate(
    relation=ref('stg_sqlstream__weather_readings'),
    time_column='rowtime',
    range="INTERVAL '1' DAY",
    aggregates={'wmin_temp': 'min(temp)', 'wmax_temp': 'max(temp)'},
    arrival_order='seq',
    columns=['seq', 'rowtime', 'city'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
