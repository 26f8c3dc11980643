select
    seq,
    entity,
    time as purchased_at,
    amount,
    is_valid
from {{ ref('purchases') }}
