-- Real data: per ticker, mean(price, window = sliding(3, price rose)): the mean of the
-- three most recent monthly prices that were above the month before, at every month.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('int_stock_prices_compared'),
    entity='ticker',
    time_column='priced_at',
    arrival_order='seq',
    window=fenl_sliding(3, 'is_price_rise'),
    aggregates={'mean_price_last_3_rises': 'mean(price)'},
    columns=['seq', 'ticker', 'priced_at', 'price', 'is_price_rise'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
