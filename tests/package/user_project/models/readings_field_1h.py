"""StreamBase field dimension: 1-hour tumbling windows on reading_at per city, closed by
the stream's progress (any city's reading)."""

from streamwindows.spark import field_dimension_aggregate_spark


def model(dbt, session):
    return field_dimension_aggregate_spark(
        dbt.ref("readings"),
        field="reading_at",
        size=3600,
        advance=3600,
        group_by=["city"],
        aggregates={"temp_sum": "sum(temp)"},
        seq="seq",
        model="readings_field_1h",
    )
