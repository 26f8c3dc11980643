select
    seq,
    rowtime,
    ticker,
    amount
from {{ ref('ticker_trades') }}
where not is_bound
