"""StreamBase field dimension, the document's Aggregate Operator Field Dimension Sample:
Size 30, Advance 30, Offset 0 on field Time, grouped by Symbol, TotalVolume = sum(Volume).
AMAT's tuple at 65 closes INTC's window [30, 60) too: closing follows global progress."""

from streamwindows.spark import field_dimension_aggregate_spark


def model(dbt, session):
    dbt.config(materialized="table")
    return field_dimension_aggregate_spark(
        dbt.ref("stg_streambase__trades"),
        field="time",
        size=30,
        advance=30,
        offset=0,
        group_by=["symbol"],
        aggregates={"total_volume": "sum(volume)"},
        seq="seq",
        model="trade_volume_30s",
    )
