{{ stream_windows.fenl_aggregate(
    source('bench', 'events'),
    entity='grp',
    time_column='event_at',
    arrival_order='seq',
    aggregates={'amount_sum': 'sum(amount)', 'amount_mean': 'mean(amount)', 'amount_max_then_mean': 'max(amount) | mean()'},
    incremental={'partition': 'day'},
) }}
