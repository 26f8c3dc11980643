"""Odysseus AGGREGATE under interval semantics, the document's count figure: one row per
elementary interval over which at least one event is valid, with the number of valid
events ([t1,t2) 1, [t2,t3) 3, [t3,t4) 1), emitted when an event starting at or after the
interval's end arrives, or at the end of input (drain)."""

from streamwindows.spark import interval_aggregate_spark


def model(dbt, session):
    dbt.config(materialized="table")
    return interval_aggregate_spark(
        dbt.ref("stg_odysseus__validity_events"),
        start="valid_from",
        end="valid_to",
        arrival="seq",
        aggregates={"events_valid": "count(*)", "max_price": "max(price)"},
        model="validity_events_count",
    )
