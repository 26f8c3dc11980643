-- Fenl: Purchase.amount | sum(), the default (cumulative) window: 5, 7, 20, 24.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_fenl__purchases'),
    entity='entity',
    time_column='purchased_at',
    arrival_order='seq',
    aggregates={'amount_sum': 'sum(amount)'},
    columns=['seq', 'entity', 'purchased_at', 'amount'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
