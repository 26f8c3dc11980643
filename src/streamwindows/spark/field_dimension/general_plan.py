"""Steps 3 and 4 of the general plan: the windows of each group (the pandas engine's
:func:`group_windows` in ``applyInPandas``) and their emission times over the global
stream (an as-of search by distinct values or by stream partitions)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from streamwindows.field_dimension import ARRIVAL_POSITION, FieldDimensionParams, group_windows
from streamwindows.spark.columns import SEQ, VALUE, aggregate_spark_type, quote
from streamwindows.spark.field_dimension.ranges import DISTINCT_VALUES_LIMIT  # one limit for both plans
from streamwindows.spark.shipping import shared_value

_PART, _CID = "__part__", "__candidate__"


# ------------------------------------------------------------------------------------
# 3. Windows per group


def _candidate_schema(params: FieldDimensionParams, schema: dict[str, str], coordinate_type: str) -> str:
    fields = [f"{quote(g)} {schema[g]}" for g in params.group_by]
    fields += [
        f"window_start {coordinate_type}", f"window_end {coordinate_type}", "emit_kind string",
        f"emit_threshold {coordinate_type}", "opened_after_position bigint", "group_first_position bigint",
        "row_count bigint",
    ]
    fields += [f"{quote(a.name)} {aggregate_spark_type(a, schema)}" for a in params.aggregates]
    return ", ".join(fields)


def group_candidates(df, params: FieldDimensionParams, schema, bounds, coordinate_type: str):
    from pyspark.sql import functions as F

    keep = list(dict.fromkeys([params.seq, params.field, *params.group_by,
                               *[c for a in params.aggregates for c in a.columns]]))
    horizon = bounds["max_value"]
    if params.field_kind == "timestamp" and horizon is not None:
        horizon = pd.Timestamp(int(horizon), unit="ns")
    out_columns = [*params.group_by, "window_start", "window_end", "emit_kind", "emit_threshold",
                   "opened_after_position", "group_first_position", "row_count",
                   *[a.name for a in params.aggregates]]

    def windows(group: pd.DataFrame) -> pd.DataFrame:
        group = group.assign(**{ARRIVAL_POSITION: group[params.seq].astype("int64")})
        result = group_windows(group, params, position_column=ARRIVAL_POSITION, horizon=horizon)
        return result[out_columns]

    selected = df.select(*[F.col(quote(c)) for c in keep])
    grouped = selected.groupBy(*[F.col(quote(g)) for g in params.group_by])
    return grouped.applyInPandas(windows, schema=_candidate_schema(params, schema, coordinate_type))


# ------------------------------------------------------------------------------------
# 4. Emission times


def resolve_emissions(stream, candidates, params: FieldDimensionParams, bounds, coordinate_type: str):
    """Attach emitted_at / emitted_position and keep the candidates that are emitted."""
    from pyspark.sql import functions as F

    resolved = None
    if params.emit_every is None:
        # Only closes: a window's end lies above the value that opened it, so the emitting
        # tuple is simply the first tuple whose value reaches the end. With few distinct
        # field values (a clock), their first arrivals answer that from a broadcast table,
        # with no pass over the stream's tuples.
        resolved = _resolve_closes_by_distinct_values(stream, candidates, coordinate_type)
    if resolved is None:
        resolved = _resolve_by_stream_partitions(stream, candidates, bounds, coordinate_type)

    reached = F.col("emitted_position").isNotNull()
    still_open = F.col("window_end").isNull() | (F.col("emitted_at") < F.col("window_end"))
    is_close = F.col("emit_kind") == "close"
    emitted = reached & (is_close | still_open)
    drained = is_close & ~reached & F.lit(bool(params.drain))
    # One withColumns: each expression must see the candidate's original emit_kind.
    return resolved.where(emitted | drained).withColumns({
        "emit_kind": F.when(drained, F.lit("drain")).otherwise(F.col("emit_kind")),
        "emitted_at": F.when(drained, F.lit(None)).otherwise(F.col("emitted_at")),
        "emitted_position": F.when(drained, F.lit(None)).otherwise(F.col("emitted_position")),
    })


def _resolve_closes_by_distinct_values(stream, candidates, coordinate_type: str):
    """None when the field has more than DISTINCT_VALUES_LIMIT distinct values."""
    from pyspark.sql import functions as F

    spark = stream.sparkSession
    first_arrivals = (stream.groupBy(VALUE).agg(F.min(SEQ).alias(SEQ))
                      .limit(DISTINCT_VALUES_LIMIT + 1).toPandas())
    if len(first_arrivals) > DISTINCT_VALUES_LIMIT:
        return None
    first_arrivals = first_arrivals.sort_values(VALUE)
    table = shared_value(
        spark, (first_arrivals[VALUE].to_numpy(), first_arrivals[SEQ].to_numpy(np.int64)))

    @F.pandas_udf(f"position bigint, value {coordinate_type}")
    def first_reaching(threshold: pd.Series, has_threshold: pd.Series) -> pd.DataFrame:
        values, seqs = table.value
        x = threshold.to_numpy(dtype=values.dtype)
        i = np.searchsorted(values, x, side="left")
        reached = has_threshold.to_numpy(dtype=bool) & (i < len(values))
        safe = np.minimum(i, max(len(values) - 1, 0))
        position = pd.Series(seqs[safe], dtype="Int64")
        position[~reached] = pd.NA  # never reached: a drain, or not emitted
        return pd.DataFrame({"position": position, "value": values[safe]})

    found = first_reaching(F.coalesce(F.col("emit_threshold"), F.lit(0).cast(coordinate_type)),
                           F.col("emit_threshold").isNotNull())
    return candidates.withColumns({"emitted_position": found["position"], "emitted_at": found["value"]})


def _resolve_by_stream_partitions(stream, candidates, bounds, coordinate_type: str):
    """The general as-of search: the later of F (first tuple with value >= threshold) and
    N (first tuple after the opening tuple), per stream partition."""
    from pyspark.sql import functions as F

    first_seq, last_seq = bounds["first_seq"], bounds["last_seq"]
    first_value, last_value = bounds["first_value"], bounds["last_value"]
    n_parts = len(first_seq)

    @F.pandas_udf("int")
    def part_of_seq(s: pd.Series) -> pd.Series:
        return pd.Series(np.searchsorted(first_seq, s.to_numpy(np.int64), side="right") - 1, dtype="int32")

    @F.pandas_udf("int")
    def answer_part(threshold: pd.Series, has_threshold: pd.Series, after: pd.Series) -> pd.Series:
        """The stream partition holding the answer, -1 - p when the driver's summaries
        answer it (partition p's first tuple), n_parts when no tuple does. The threshold
        comes NULL-free (Arrow would turn a nullable bigint into float64)."""
        x = threshold.to_numpy(dtype=first_value.dtype)
        has_x = has_threshold.to_numpy(dtype=bool)
        a = after.to_numpy(np.int64)
        by_value = np.searchsorted(last_value, x, side="left")  # first part whose last value >= x
        by_seq = np.searchsorted(last_seq, a, side="right")  # first part with a tuple after a
        part = np.maximum(by_value, by_seq)
        part = np.where(has_x, part, n_parts)
        inside = part < n_parts
        safe = np.minimum(part, n_parts - 1)
        starts = (first_value[safe] >= x) & (first_seq[safe] > a)
        return pd.Series(np.where(inside & ~starts, part, np.where(inside, -1 - part, n_parts)), dtype="int32")

    located = candidates.withColumn(
        _PART, answer_part(F.coalesce(F.col("emit_threshold"), F.lit(0).cast(coordinate_type)),
                           F.col("emit_threshold").isNotNull(), F.col("opened_after_position")))
    # Answered by a partition's first tuple (encoded -1 - part) or by nothing (n_parts).
    first_seq_list = [int(s) for s in first_seq]
    first_value_list = [v.item() for v in first_value]
    seq_map = F.create_map(*[x for i, s in enumerate(first_seq_list) for x in (F.lit(i), F.lit(s))])
    value_map = F.create_map(*[x for i, v in enumerate(first_value_list)
                               for x in (F.lit(i), F.lit(v).cast(coordinate_type))])
    direct = located.where(F.col(_PART) < 0).withColumns({
        "emitted_position": F.element_at(seq_map, -1 - F.col(_PART)),
        "emitted_at": F.element_at(value_map, -1 - F.col(_PART)),
    }).drop(_PART)
    never = located.where(F.col(_PART) >= n_parts).withColumns({
        "emitted_position": F.lit(None).cast("bigint"),
        "emitted_at": F.lit(None).cast(coordinate_type),
    }).drop(_PART)

    needs_data = located.where((F.col(_PART) >= 0) & (F.col(_PART) < n_parts))
    tuples = stream.select(SEQ, VALUE).withColumn(_PART, part_of_seq(F.col(SEQ)))
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    out_schema = StructType([  # a new StructType: .add() would mutate the DataFrame's cached schema
        *needs_data.schema.fields,
        StructField("emitted_position", LongType()),
        StructField("emitted_at", LongType() if coordinate_type == "bigint" else DoubleType()),
    ])

    def search(chunk: pd.DataFrame, lookups: pd.DataFrame) -> pd.DataFrame:
        if len(lookups) == 0:
            return lookups.assign(emitted_position=pd.Series(dtype="int64"),
                                  emitted_at=pd.Series(dtype="float64"))
        chunk = chunk.sort_values(SEQ)
        seqs = chunk[SEQ].to_numpy(np.int64)
        values = chunk[VALUE].to_numpy()
        x = lookups["emit_threshold"].to_numpy(dtype=values.dtype)
        by_value = np.searchsorted(values, x, side="left")
        by_seq = np.searchsorted(seqs, lookups["opened_after_position"].to_numpy(np.int64), side="right")
        at = np.maximum(by_value, by_seq)  # inside: the partition was chosen to hold it
        return lookups.assign(emitted_position=seqs[at], emitted_at=values[at])

    searched = (needs_data.groupBy(_PART)
                .cogroup(tuples.groupBy(_PART))
                .applyInPandas(lambda lookups, chunk: search(chunk, lookups), schema=out_schema)
                .drop(_PART))
    return direct.unionByName(never).unionByName(searched)
