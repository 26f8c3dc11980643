{{ stream_windows.rows_window_aggregate(
    relation=source('bench', 'events'),
    rows=9,
    partition_by=['grp'],
    aggregates={'amount_avg_10': 'avg(amount)', 'amount_min_10': 'min(amount)'},
    arrival_order='seq',
    incremental={'time_column': 'event_at', 'partition': 'day'},
) }}
