select
    reading_id,
    station,
    value,
    note
from {{ ref('fixture_readings') }}
