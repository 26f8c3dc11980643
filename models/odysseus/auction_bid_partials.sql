-- Odysseus PRE_AGG (outputPA = true): the partial aggregates of every bidder's bids
-- per 10-minute pane of date_time, one row per bidder and pane. The mapping is the
-- one auction_bidder_max_price merges (AGG).
{{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['time_partition']) }}
{{ partial_aggregate(
    relation=ref('auction_bids'),
    group_by=['bidder'],
    pane={'time_column': 'date_time', 'size': '10 minutes'},
    arrival_order='seq',
    aggregates={
        'bid_count': 'count(*)',
        'max_price': 'max(price)',
        'min_price': 'min(price)',
        'price_sum': 'sum(price)',
        'avg_price': 'avg(price)',
        'median_price': 'median(price)',
        'price_stddev': 'stddev(price)',
        'first_auction': 'first(auction)',
        'last_auction': 'last(auction)',
        'auctions': 'distinctnest(auction)',
    },
    incremental={'partition': 'day', 'late_rows': var('late_rows', 'error')},
) }}
