-- Fenl: Purchase.amount | sum() | mean(): the running mean of the running sum,
-- 5, 6, 10.666..., 14 (repeated aggregation).
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_fenl__purchases'),
    entity='entity',
    time_column='purchased_at',
    arrival_order='seq',
    aggregates={'amount_sum': 'sum(amount)', 'amount_sum_mean': 'sum(amount) | mean()'},
    columns=['seq', 'entity', 'purchased_at', 'amount'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
