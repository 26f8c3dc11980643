"""StreamBase field dimension, the document's weekly moving averages on real data (daily
Seattle weather 2012-2015): field Day, advance 1, size 7, per city, averages of the low,
mid and high temperature; window_start is the document's StartDay and row_count its
NumDays. Optional windows: 'single'. Scheduled runs append the windows
that closed since the last one."""

from streamwindows.spark import field_dimension_incremental_spark


def model(dbt, session):
    dbt.config(materialized="incremental", incremental_strategy="append")
    previous = session.table(str(dbt.this)) if dbt.is_incremental else None
    return field_dimension_incremental_spark(
        dbt.ref("stg_vega__seattle_daily_weather"),
        previous,
        field="day_number",
        size=7,
        advance=1,
        group_by=["city"],
        optional_windows="single",
        aggregates={
            "low_temp_c_avg": "avg(low_temp_c)",
            "avg_temp_c_avg": "avg(avg_temp_c)",
            "high_temp_c_avg": "avg(high_temp_c)",
        },
        seq="seq",
        late_rows=dbt.config.get("late_rows"),
        this=str(dbt.this),
        model="weekly_temperature_single",
    )
