"""StreamInsight count window over 2 distinct start times of the interval events e1..e3,
with a user-defined, time-sensitive aggregate: the time-weighted average of the reading
over each event's lifetime clipped to the window (input policy ClipToWindow).
[1, 4): e1 clipped to [1, 4), e2 to [3, 4): (1*3 + 2*1) / 4 = 1.25;
[3, 7): e2 clipped to [3, 7), e3 to [6, 7): (2*4 + 3*1) / 5 = 2.2.

Scheduled runs overwrite the buckets of 10 time units from the earliest window that a
new start time closes, and each group's provisional last window (time_partition NULL)."""

from streamwindows import time_weighted_average
from streamwindows.spark import count_window_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="insert_overwrite", partition_by=["time_partition"])
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return count_window_incremental_spark(
        dbt.ref("stg_streaminsight__interval_events"),
        previous,
        time="start_time",
        end="end_time",
        n=2,
        arrival="seq",
        aggregates={"events": "count(*)"},
        user_aggregates={"twa_reading": time_weighted_average("reading")},
        partition=10,
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="interval_events_count_window_2_twa",
    )
