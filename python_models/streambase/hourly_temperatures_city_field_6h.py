"""StreamBase field dimension on real data, built incrementally: per city, windows of
6 hours advancing by 1 hour on the reading time (a timestamp field, in seconds), with
the low, high and mean temperature. Scheduled runs append the windows that closed since
the last run (README "Incremental runs"); a reading older than what a run has already
passed fails it with OutOfOrder, as it fails a full build (with `--vars '{late_rows:
audit}'` it goes to hourly_temperatures_city_field_6h__late_rows and stays out)."""

from streamwindows.spark import field_dimension_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="append")
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return field_dimension_incremental_spark(
        dbt.ref("stg_vega__hourly_temperatures"),
        previous,
        field="reading_at",
        size=6 * 3600,
        advance=3600,
        group_by=["city"],
        aggregates={
            "min_temp_f": "min(temp_f)",
            "max_temp_f": "max(temp_f)",
            "avg_temp_f": "avg(temp_f)",
        },
        seq="seq",
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="hourly_temperatures_city_field_6h",
    )
