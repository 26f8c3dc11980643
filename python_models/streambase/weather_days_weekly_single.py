"""StreamBase field dimension, the document's weekly moving averages on its own input:
field day, advance 1, size 7, no intermediate emission, optional windows 'single';
window_start is the document's StartDay, row_count its NumDays, and low_avg,
average_avg, high_avg its LowAvg, AverageAvg, HighAvg (equal to the document's table
to one decimal, tested)."""

from streamwindows.spark import field_dimension_aggregate_spark


def model(dbt, session):
    dbt.config(materialized="table")
    return field_dimension_aggregate_spark(
        dbt.ref("stg_streambase__weather_days"),
        field="day",
        size=7,
        advance=1,
        optional_windows="single",
        aggregates={"low_avg": "avg(low_temp)", "average_avg": "avg(average_temp)", "high_avg": "avg(high_temp)"},
        seq="seq",
        model="weather_days_weekly_single",
    )
