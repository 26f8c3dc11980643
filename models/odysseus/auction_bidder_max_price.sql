-- Odysseus AGG over PRE_AGG's partial aggregates: the document's
-- `SELECT MAX(price) AS max_price FROM input GROUP BY bidder`, with more functions,
-- merged from the bidder's 10-minute panes.
{{ merge_partial_aggregates(
    relation=ref('auction_bid_partials'),
    group_by=['bidder'],
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
) }}
