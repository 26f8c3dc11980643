select
    seq,
    event_name,
    start_time,
    reading
from {{ ref('point_events') }}
