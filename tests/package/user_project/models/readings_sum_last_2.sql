-- SQLstream ROWS 1 PRECEDING per city: the reading and the one before it.
{{ stream_windows.rows_window_aggregate(
    relation=ref('readings'),
    rows=1,
    partition_by=['city'],
    arrival_order='seq',
    aggregates={'temp_sum_last_2': 'sum(temp)'},
) }}
