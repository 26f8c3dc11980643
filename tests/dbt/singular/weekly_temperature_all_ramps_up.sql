-- StreamBase's weekly example, 'all' optional windows: the first StartDay is the first
-- day - 6 and NumDays runs 1..7 over the first seven emissions, emitted from the second
-- tuple on. Fails unless all seven rows have exactly that shape.
select count(*) as matching_ramp_rows
from {{ ref('weekly_temperature_all') }}
where emit_seq < 7
    and window_start = emit_seq - 5
    and row_count = emit_seq + 1
    and emitted_at = emit_seq + 2
having count(*) != 7
