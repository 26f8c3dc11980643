"""Interval semantics, incremental (insert_overwrite by the day of emitted_at): every event
is valid for 2 hours; per group, one row per elementary interval with the events valid there."""

from pyspark.sql import functions as F

from streamwindows.spark import interval_aggregate_incremental_spark


def model(dbt, session):
    # Python models take no materialization from dbt_project.yml here: set it in the model.
    dbt.config(materialized="incremental", incremental_strategy="insert_overwrite", partition_by=["time_partition"])
    events = dbt.source("bench", "events")
    valid = events.withColumn("valid_to", F.col("event_at") + F.expr("INTERVAL 2 HOURS"))
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return interval_aggregate_incremental_spark(
        valid,
        previous,
        start="event_at",
        end="valid_to",
        group_by=["grp"],
        arrival="seq",
        aggregates={"amount_sum": "sum(amount)", "amount_max": "max(amount)"},
        this=str(dbt.this),  # the late-row policy, fingerprints and input-file record
        model="events_valid_2h",
    )
