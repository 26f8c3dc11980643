-- Odysseus partial aggregates: mergeable states per city and hour.
{{ stream_windows.partial_aggregate(
    relation=ref('readings'),
    group_by=['city'],
    pane={'time_column': 'reading_at', 'size': '1 hour'},
    arrival_order='seq',
    aggregates={'temp_max': 'max(temp)', 'temp_avg': 'avg(temp)', 'readings': 'count(*)'},
) }}
