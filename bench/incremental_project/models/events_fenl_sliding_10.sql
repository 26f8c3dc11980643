{{ stream_windows.fenl_aggregate(
    source('bench', 'events'),
    entity='grp',
    time_column='event_at',
    arrival_order='seq',
    window=stream_windows.fenl_sliding(10, 'amount >= 50'),
    aggregates={'amount_mean_10': 'mean(amount)', 'amount_mean_10_then_max': 'mean(amount) | max()'},
    incremental={'partition': 'day'},
) }}
