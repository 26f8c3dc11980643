select
    seq,
    ticker,
    cast(priced_on as timestamp) as priced_at,
    price
from {{ ref('monthly_stock_prices') }}
