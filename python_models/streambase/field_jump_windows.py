"""StreamBase field dimension, the document's note on advances: size = advance = 1 and
values 0 then 9.2. The second window opens at 9.0, not 1.0: the empty windows between
are never opened. drain=True emits the window still open at the end of the input."""

from streamwindows.spark import field_dimension_aggregate_spark


def model(dbt, session):
    dbt.config(materialized="table")
    return field_dimension_aggregate_spark(
        dbt.ref("stg_streambase__field_jump_readings"),
        field="reading_value",
        size=1,
        advance=1,
        aggregates={"readings": "count(*)"},
        drain=True,
        seq="seq",
        model="field_jump_windows",
    )
