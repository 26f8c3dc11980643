-- SQLstream: SUM(amount) per ticker over RANGE INTERVAL '1' HOUR PRECEDING, with the
-- stream's rowtime bounds passing through as bound rows (is_bound), as in the
-- document's Trades / Trades.bound example.
{{ range_window_aggregate(
    relation=ref('stg_sqlstream__trades'),
    time_column='rowtime',
    range="INTERVAL '1' HOUR",
    partition_by=['ticker'],
    aggregates={'hourly_volume': 'sum(amount)'},
    arrival_order='seq',
    bounds=ref('stg_sqlstream__trade_bounds'),
) }}
