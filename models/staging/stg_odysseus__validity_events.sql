select
    seq,
    valid_from,
    valid_to,
    price
from {{ ref('validity_events') }}
