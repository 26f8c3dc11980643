select
    seq,
    reading_value
from {{ ref('field_jump_readings') }}
