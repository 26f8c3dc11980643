select
    seq,
    event_name,
    start_time,
    end_time,
    reading
from {{ ref('interval_events') }}
