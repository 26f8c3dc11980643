{{ stream_windows.range_window_aggregate(
    relation=source('bench', 'events'),
    time_column='event_at',
    range="INTERVAL '24' HOUR",
    direction='following',
    partition_by=['grp'],
    aggregates={'amount_avg_next_24h': 'avg(amount)'},
    arrival_order='seq',
    incremental={'partition': 'day'},
) }}
