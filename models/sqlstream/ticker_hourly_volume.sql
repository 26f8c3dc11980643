-- SQLstream: SUM(amount) per ticker over RANGE INTERVAL '1' HOUR PRECEDING, with the
-- stream's rowtime bounds passing through as bound rows (is_bound), as in the
-- document's Trades / Trades.bound example. Built incrementally: the bounds arrive in
-- the same arrival order as the trades, so a scheduled run reads both from the
-- latest processed hour's day on.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ range_window_aggregate(
    relation=ref('stg_sqlstream__trades'),
    time_column='rowtime',
    range="INTERVAL '1' HOUR",
    partition_by=['ticker'],
    aggregates={'hourly_volume': 'sum(amount)'},
    arrival_order='seq',
    bounds=ref('stg_sqlstream__trade_bounds'),
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
