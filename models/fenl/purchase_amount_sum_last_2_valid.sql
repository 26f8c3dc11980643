-- Fenl: sum(Purchase.amount, window = sliding(2, is_valid(Purchase))): the two most
-- recent valid purchases, NULL until there are two: NULL, 7, 15, 17.
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ fenl_aggregate(
    relation=ref('stg_fenl__purchases'),
    entity='entity',
    time_column='purchased_at',
    arrival_order='seq',
    window=fenl_sliding(2, 'is_valid'),
    aggregates={'amount_sum_last_2_valid': 'sum(amount)'},
    columns=['seq', 'entity', 'purchased_at', 'amount'],
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
