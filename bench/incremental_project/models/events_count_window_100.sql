{{ stream_windows.count_window_aggregate(
    relation=source('bench', 'events'),
    time_column='event_at',
    n=100,
    group_by=['grp'],
    aggregates={'amount_avg_100': 'avg(amount)', 'amount_max_100': 'max(amount)'},
    arrival_order='seq',
    incremental={'partition': 'day'},
) }}
