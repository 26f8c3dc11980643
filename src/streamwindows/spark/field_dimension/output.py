"""Step 5 of the general plan, order and output: the emissions numbered in output order,
and the documented columns in the field's types (which the value-range plan shares)."""

from __future__ import annotations

import numpy as np

from streamwindows.field_dimension import FieldDimensionParams
from streamwindows.spark.columns import aggregate_spark_type, quote
from streamwindows.spark.numbering import numbered


def output_schema(params: FieldDimensionParams, schema: dict[str, str], coordinate_type: str) -> str:
    bound_type = "timestamp" if params.field_kind == "timestamp" else (
        "bigint" if params.integer_bounds else "double")
    at_type = "timestamp" if params.field_kind == "timestamp" else schema[params.field]
    fields = [f"{quote(g)} {schema[g]}" for g in params.group_by]
    fields += [f"window_start {bound_type}", f"window_end {bound_type}", "emit_kind string",
               f"emitted_at {at_type}", "emit_seq bigint", "row_count bigint"]
    fields += [f"{quote(a.name)} {aggregate_spark_type(a, schema)}" for a in params.aggregates]
    return ", ".join(fields)


def order_emissions(emissions, params: FieldDimensionParams, schema: dict[str, str], parts: int | None):
    """The emissions numbered in output order (emit_seq): by the arrival position that
    emitted them (drained windows last), closes before intermediate emissions before
    drains, then window start, the group's first arrival and the emission threshold."""
    from pyspark.sql import functions as F

    phase = F.when(F.col("emit_kind") == "close", 0).when(F.col("emit_kind") == "intermediate", 1).otherwise(2)
    drain_last = F.coalesce(F.col("emitted_position"), F.lit(np.iinfo(np.int64).max))
    keys = [drain_last, phase, F.col("window_start"), F.col("group_first_position"),
            F.coalesce(F.col("emit_threshold"), F.lit(0)).cast("double")]
    return public_output(numbered(emissions, keys, parts=parts), params, schema)


def public_output(rows, params: FieldDimensionParams, schema: dict[str, str]):
    """Numbered emissions (coordinates) -> the documented columns in the field's types."""
    from pyspark.sql import functions as F

    def bound(column: str):
        if params.field_kind == "timestamp":  # coordinates are nanoseconds
            return F.timestamp_micros(F.expr(f"{column} div 1000"))
        return F.col(column).cast("bigint" if params.integer_bounds else "double")

    emitted_at = (bound("emitted_at") if params.field_kind == "timestamp"
                  else F.col("emitted_at").cast(schema[params.field]))
    return rows.select(
        *[F.col(quote(g)) for g in params.group_by],
        bound("window_start").alias("window_start"),
        bound("window_end").alias("window_end"),
        F.col("emit_kind"),
        emitted_at.alias("emitted_at"),
        F.col("emit_seq"),
        F.col("row_count"),
        *[F.col(quote(a.name)) for a in params.aggregates],
    )
