"""Odysseus AGGREGATE under interval semantics, the document's count figure: one row per
elementary interval over which at least one event is valid, with the number of valid
events ([t1,t2) 1, [t2,t3) 3, [t3,t4) 1), emitted when an event starting at or after the
interval's end arrives, or at the end of input (drain). Scheduled runs overwrite the
buckets of 10 time units emitted from the earliest new start's, and the open pieces."""

from streamwindows.spark import interval_aggregate_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="insert_overwrite", partition_by=["time_partition"])
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return interval_aggregate_incremental_spark(
        dbt.ref("stg_odysseus__validity_events"),
        previous,
        start="valid_from",
        end="valid_to",
        arrival="seq",
        aggregates={"events_valid": "count(*)", "max_price": "max(price)"},
        partition=10,
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="validity_events_count",
    )
