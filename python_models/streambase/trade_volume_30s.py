"""StreamBase field dimension, the document's Aggregate Operator Field Dimension Sample:
Size 30, Advance 30, Offset 0 on field Time, grouped by Symbol, TotalVolume = sum(Volume).
AMAT's tuple at 65 closes INTC's window [30, 60) too: closing follows global progress.
Scheduled runs append the windows that closed since the last one."""

from streamwindows.spark import field_dimension_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="append")
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return field_dimension_incremental_spark(
        dbt.ref("stg_streambase__trades"),
        previous,
        field="time",
        size=30,
        advance=30,
        offset=0,
        group_by=["symbol"],
        aggregates={"total_volume": "sum(volume)"},
        seq="seq",
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="trade_volume_30s",
    )
