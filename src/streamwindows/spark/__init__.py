"""The Spark layer: validates on the driver, runs the pandas engine on the executors.

Imported only where Spark is used (the engine itself needs no pyspark)."""

from streamwindows.spark.count_window import count_window_aggregate_spark, count_window_incremental_spark
from streamwindows.spark.field_dimension import field_dimension_aggregate_spark, field_dimension_incremental_spark
from streamwindows.spark.interval_semantics import interval_aggregate_incremental_spark, interval_aggregate_spark
from streamwindows.spark.shipping import ship_package

__all__ = [
    "count_window_aggregate_spark", "count_window_incremental_spark", "field_dimension_aggregate_spark",
    "field_dimension_incremental_spark", "interval_aggregate_incremental_spark", "interval_aggregate_spark",
    "ship_package",
]
