select
    seq,
    time,
    symbol,
    volume
from {{ ref('trades') }}
