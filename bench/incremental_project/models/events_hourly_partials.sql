{{ stream_windows.partial_aggregate(
    source('bench', 'events'),
    group_by=['grp'],
    pane={'time_column': 'event_at', 'size': '1 hour'},
    arrival_order='seq',
    aggregates={'amount_sum': 'sum(amount)', 'events': 'count(*)', 'amount_max': 'max(amount)',
                'amount_mean': 'avg(amount)', 'amount_stddev': 'stddev(amount)'},
    incremental={'partition': 'day'},
) }}
