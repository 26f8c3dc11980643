-- Real data: per ticker, the highest monthly price so far (Fenl's default window), and
-- the running mean of that all-time high (max() | mean()).
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_vega__monthly_stock_prices'),
    entity='ticker',
    time_column='priced_at',
    arrival_order='seq',
    aggregates={'max_price_so_far': 'max(price)', 'mean_of_max_price_so_far': 'max(price) | mean()'},
    columns=['seq', 'ticker', 'priced_at', 'price'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
