-- Each monthly price beside the ticker's previous one, so a Fenl predicate can read
-- "the price rose" from the row itself.
with prices as (
    select * from {{ ref('stg_vega__monthly_stock_prices') }}
)

select
    seq,
    ticker,
    priced_at,
    price,
    lag(price) over (partition by ticker order by priced_at, seq) as previous_price,
    coalesce(price > lag(price) over (partition by ticker order by priced_at, seq), false) as is_price_rise
from prices
