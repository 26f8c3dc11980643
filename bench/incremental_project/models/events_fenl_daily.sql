{{ stream_windows.fenl_aggregate(
    source('bench', 'events'),
    entity='grp',
    time_column='event_at',
    arrival_order='seq',
    window=stream_windows.fenl_since(period='daily'),
    aggregates={'amount_sum': 'sum(amount)', 'events': 'count(*)', 'amount_mean': 'mean(amount)'},
    incremental={'partition': 'day'},
) }}
