"""Odysseus interval semantics on real data, built incrementally: every hourly reading
is valid for 3 hours, [reading_at, reading_at + 3h); per city, one row per elementary
interval (an hour, when readings come every hour) with the readings valid there and
their lowest, highest and mean temperature. Scheduled runs recompute only the pieces
emitted from the month of the earliest new reading on and the pieces still open (README
"Incremental runs"); a reading older than one that arrived before it (either city's)
fails the run with OutOfOrder, as it fails a full build (with `--vars '{late_rows:
audit}'` it goes to hourly_temperatures_city_valid_3h__late_rows and stays out)."""

from pyspark.sql import functions as F

from streamwindows.spark import interval_aggregate_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="insert_overwrite", partition_by=["time_partition"])
    readings = dbt.ref("stg_vega__hourly_temperatures")
    valid = readings.withColumn("valid_to", F.col("reading_at") + F.expr("INTERVAL 3 HOURS"))
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return interval_aggregate_incremental_spark(
        valid,
        previous,
        start="reading_at",
        end="valid_to",
        group_by=["city"],
        arrival="seq",
        aggregates={
            "readings_valid": "count(*)",
            "min_temp_f": "min(temp_f)",
            "max_temp_f": "max(temp_f)",
            "avg_temp_f": "avg(temp_f)",
        },
        partition="month",
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="hourly_temperatures_city_valid_3h",
    )
