-- StreamInsight count window over 2 distinct reading times per city.
{{ stream_windows.count_window_aggregate(
    relation=ref('readings'),
    time_column='reading_at',
    n=2,
    group_by=['city'],
    arrival_order='seq',
    aggregates={'temp_sum': 'sum(temp)'},
) }}
