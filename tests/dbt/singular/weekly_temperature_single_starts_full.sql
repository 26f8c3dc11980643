-- StreamBase's weekly example, 'single' optional windows: the first window starts on
-- the first day, holds seven days and is emitted when the eighth day arrives.
select count(*) as matching_first_rows
from {{ ref('weekly_temperature_single') }}
where emit_seq = 0 and window_start = 1 and row_count = 7 and emitted_at = 8 and emit_kind = 'close'
having count(*) != 1
