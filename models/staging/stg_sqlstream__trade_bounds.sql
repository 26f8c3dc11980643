select
    seq,
    rowtime
from {{ ref('ticker_trades') }}
where is_bound
