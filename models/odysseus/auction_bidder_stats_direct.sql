-- The same bidder statistics as auction_bidder_max_price, computed directly by one
-- GROUP BY over the bids (Spark's own aggregates): merging the partial aggregates
-- must give exactly this.
select
    bidder,
    count(*) as bid_count,
    max(price) as max_price,
    min(price) as min_price,
    sum(price) as price_sum,
    avg(price) as avg_price,
    median(price) as median_price,
    stddev(price) as price_stddev,
    min_by(auction, seq) as first_auction,
    max_by(auction, seq) as last_auction
from {{ ref('auction_bids') }}
group by bidder
