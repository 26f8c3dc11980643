select
    view_id,
    user_id,
    viewed_at,
    page,
    dwell_ms
from {{ ref('page_views') }}
