"""The field dimension, incremental (append): 6-hour windows advancing by 1 hour on the
event time, per group, optional windows 'all'; each run appends the windows that closed since the last one."""

from streamwindows.spark import field_dimension_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="append")
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return field_dimension_incremental_spark(
        dbt.source("bench", "events"),
        previous,
        field="event_at",
        size=6 * 3600,
        advance=3600,
        group_by=["grp"],
        optional_windows="all",  # every window holding an event: the set Spark's window() groups by
        aggregates={"amount_sum": "sum(amount)", "amount_max": "max(amount)", "events": "count(*)"},
        seq="seq",
        this=str(dbt.this),  # the late-row policy, fingerprints and input-file record
        model="events_field_6h",
    )
