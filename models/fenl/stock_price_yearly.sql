-- Real data: per ticker, Fenl's since(yearly()) over monthly closing prices: one row
-- per ticker and year boundary, 2001-01-01 .. 2011-01-01. GOOG, listed in 2004, has
-- empty years before (count 0, mean NULL), as every entity gets every period.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_vega__monthly_stock_prices'),
    entity='ticker',
    time_column='priced_at',
    arrival_order='seq',
    window=fenl_since(period='yearly'),
    aggregates={
        'mean_price_yearly': 'mean(price)',
        'max_price_yearly': 'max(price)',
        'min_price_yearly': 'min(price)',
        'closing_price_yearly': 'last(price)',
        'prices_yearly': 'count(price)',
    },
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
