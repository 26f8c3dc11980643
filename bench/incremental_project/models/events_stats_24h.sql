{{ stream_windows.range_window_aggregate(
    relation=source('bench', 'events'),
    time_column='event_at',
    range="INTERVAL '24' HOUR",
    partition_by=['grp'],
    aggregates={'amount_sum_24h': 'sum(amount)', 'amount_max_24h': 'max(amount)', 'events_24h': 'count(*)'},
    arrival_order='seq',
    incremental={'partition': 'day'},
) }}
