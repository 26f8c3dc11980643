"""StreamBase field dimension, the document's note on advances: size = advance = 1 and
values 0 then 9.2. The second window opens at 9.0, not 1.0: the empty windows between
are never opened. drain=True emits the window still open at the end of the input.

Scheduled runs: the drained window is provisional, so the table is overwritten by
partition (time_partition: the bucket of 10 of emitted_at, NULL for drained windows),
and each run replaces the drained windows with what the input now closes or leaves
open."""

from streamwindows.spark import field_dimension_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="insert_overwrite", partition_by=["time_partition"])
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return field_dimension_incremental_spark(
        dbt.ref("stg_streambase__field_jump_readings"),
        previous,
        field="reading_value",
        size=1,
        advance=1,
        aggregates={"readings": "count(*)"},
        drain=True,
        partition=10,
        seq="seq",
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="field_jump_windows",
    )
