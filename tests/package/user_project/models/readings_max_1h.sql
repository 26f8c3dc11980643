-- SQLstream RANGE INTERVAL '1' HOUR PRECEDING per city, streaming ties: a reading's
-- window holds its city's readings of the last hour that arrived at or before it.
{{ stream_windows.range_window_aggregate(
    relation=ref('readings'),
    time_column='reading_at',
    range="INTERVAL '1' HOUR",
    partition_by=['city'],
    arrival_order='seq',
    aggregates={'temp_max_1h': 'max(temp)', 'readings_1h': 'count(*)'},
) }}
