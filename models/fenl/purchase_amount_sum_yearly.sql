-- Fenl: sum(Purchase.amount, window = since(yearly())): one row per year boundary from
-- the year of the oldest purchase to that of the newest, empty years 0:
-- 2013-01-01 7, 2014..2018 0, 2019-01-01 13, 2020-01-01 4.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_fenl__purchases'),
    entity='entity',
    time_column='purchased_at',
    arrival_order='seq',
    window=fenl_since(period='yearly'),
    aggregates={'amount_sum_yearly': 'sum(amount)', 'purchases_yearly': 'count(*)'},
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
