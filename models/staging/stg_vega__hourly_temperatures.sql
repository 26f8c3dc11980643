select
    seq,
    reading_at,
    city,
    temp_f
from {{ ref('hourly_temperatures') }}
