"""StreamBase's field-based dimension on Spark, distributed.

Two plans, the same output:

* **Grid windows that only close** (``opening='advance'``, a ``size``, no
  ``emit_every``: tumbling and hopping windows) run by ranges of the value axis
  (:mod:`streamwindows.spark.field_dimension_ranges`): one aggregation over the distinct
  field values checks arrival order and gives every emission time, and each range of
  window starts is one task of the engine's vectorized core. Each row crosses one
  shuffle and one Python pass (the general plan: two of each, and a global sort).
* **Everything else** (intermediate emission, ``opening='none'``, no ``size``, or more
  than two million distinct field values) runs the general plan below.

The pandas engine (:mod:`streamwindows.field_dimension`) splits the work into a
per-group part and a global part; in the general plan each runs where it belongs:

1. **Parameters** are validated on the driver against the DataFrame's schema, before
   any Spark job.
2. **Arrival order** (OutOfOrder, NULL field, NULL or repeated ``seq``) is checked on
   the stream range-partitioned by ``seq``: each partition checks itself and returns
   one summary row (first/last seq and value); the driver checks the P-1 boundaries.
   The summaries also cut the value axis into P contiguous ranges for step 4.
3. **Windows** of each group come from :func:`group_windows` in ``applyInPandas``, in
   parallel across groups: every window, each moment it may emit, its aggregates.
4. **Emission times** need the global stream: a candidate is emitted by the first
   tuple (any group) after its window opened whose value reaches its threshold. That
   as-of search runs per stream partition (cogroup of the partition's tuples with the
   candidates whose answer lies in it); candidates answered by a partition's first
   tuple are resolved from the driver's summaries without touching data.
5. **Order**: emissions are range-partitioned and sorted by (emitting tuple, phase,
   window start, group's first arrival, point); emit_seq is each partition's offset
   (from P counts) plus the row's index. No step funnels rows through one task or to
   the driver, and the result does not depend on the number of partitions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import InvalidParameterError, NullFieldError, OutOfOrderError
from streamwindows.field_dimension import (
    ARRIVAL_POSITION,
    FieldDimensionParams,
    group_windows,
    validate_parameters,
)
from streamwindows.spark.columns import PANDAS_TYPES, SEQ, VALUE, aggregate_spark_type, plain, quote
from streamwindows.spark.field_dimension_ranges import DISTINCT_VALUES_LIMIT  # one limit for both plans
from streamwindows.spark.fingerprints import InputFingerprints
from streamwindows.spark.incremental import require_time_partition, time_partitioner
from streamwindows.spark.late_rows import late_rows_policy
from streamwindows.spark.numbering import numbered

SPARK_FUNCTION = "field_dimension_aggregate_spark"
_PART, _CID = "__part__", "__candidate__"

@dataclass(frozen=True)
class _Prepared:
    """A validated call: the input (decimals as doubles), its Spark types, the
    parameters, the field as coordinates (a Column) and the parallelism."""

    df: Any
    schema: dict[str, str]
    params: FieldDimensionParams
    value: Any
    coordinate_type: str
    n_parts: int  # the value-range plan's least number of tasks
    range_parts: int | None  # the range repartitions' count: None lets Spark's AQE merge small ones

    @property
    def spark(self):
        return self.df.sparkSession

    def stream(self):
        """(seq, coordinate, group columns) of the input."""
        from pyspark.sql import functions as F

        return self.df.select(F.col(quote(self.params.seq)).alias(SEQ), self.value.alias(VALUE),
                            *[F.col(quote(g)) for g in self.params.group_by])

    def empty(self):
        return self.spark.createDataFrame([], _output_schema(self.params, self.schema, self.coordinate_type))


def _prepare(df, *, seq: Any, model: str | None, partitions: int | None, **options: Any) -> _Prepared:
    """Everything checked before any Spark job; raises InvalidParameterError."""
    from pyspark.sql import functions as F

    from streamwindows.spark.shipping import ship_package

    if not isinstance(seq, str) or not seq:
        raise InvalidParameterError(
            SPARK_FUNCTION, "seq", "the arrival-order column (a Spark DataFrame has no row order)", seq,
            model=model,
        )
    schema = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    decimals = [name for name, kind in schema.items() if kind.startswith("decimal")]
    if decimals:  # applyInPandas would hand the engine Python Decimal objects
        df = df.select(*[F.col(quote(c)).cast("double").alias(c) if c in decimals else F.col(quote(c))
                         for c in df.columns])
        schema = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    columns = {name: PANDAS_TYPES.get(kind, "object") for name, kind in schema.items()}
    params = validate_parameters(columns, seq=seq, model=model, function=SPARK_FUNCTION, **options)
    spark = df.sparkSession
    ship_package(spark)
    n_parts = int(partitions or spark.conf.get("spark.sql.shuffle.partitions"))
    coordinate_type = "bigint" if params.exact else "double"
    if params.field_kind == "timestamp":
        value = F.expr(f"unix_micros({quote(params.field)}) * 1000")
    else:
        value = F.col(quote(params.field)).cast(coordinate_type)
    return _Prepared(df, schema, params, value, coordinate_type, n_parts, int(partitions) if partitions else None)


def _by_value_ranges(prepared: _Prepared, frame=None, **incremental: Any):
    """The value-range plan (None: too many distinct values); ``frame`` defaults to the
    input, ``incremental`` passes group_firsts / starts_after / first_emit_seq on."""
    from streamwindows.spark import field_dimension_ranges

    p = prepared
    return field_dimension_ranges.grid_windows_by_value_ranges(
        p.df if frame is None else frame, p.params, p.schema, value=p.value, seq_column=p.params.seq,
        coordinate_type=p.coordinate_type, n_parts=p.n_parts,
        check_arrival_order=lambda checked: _check_arrival_order(checked, p.params, p.range_parts),
        public_output=lambda rows: _public_output(rows, p.params, p.schema),
        aggregate_types={a.name: aggregate_spark_type(a, p.schema) for a in p.params.aggregates},
        empty=p.empty, **incremental,
    )


def field_dimension_aggregate_spark(
    df,
    *,
    field: str,
    aggregates: Mapping[str, Any],
    seq: str,
    size: Any = None,
    advance: Any = None,
    offset: Any = 0,
    group_by: Sequence[str] | str = (),
    opening: str = "advance",
    optional_windows: str = "single",
    emit_every: Any = None,
    drain: bool = False,
    model: str | None = None,
    partitions: int | None = None,
):
    """The Aggregate operator's field-based dimension over a Spark DataFrame.

    Same parameters and output as :func:`streamwindows.field_dimension_aggregate`
    (docs/semantics.md, StreamBase section), except that ``seq``, the arrival-order column, is
    required (a DataFrame has no row order) and its values must be unique. Raises
    :class:`InvalidParameterError` before any Spark job, and OutOfOrderError /
    NullFieldError naming the arrival position, ``seq``, group and values.
    ``partitions`` sets the parallelism of the global steps (default: the session's
    shuffle partitions, which Spark's adaptive execution may merge for a small input);
    the result does not depend on it.
    """
    from streamwindows.spark import field_dimension_ranges

    prepared = _prepare(
        df, seq=seq, model=model, partitions=partitions, field=field, size=size, advance=advance, offset=offset,
        group_by=group_by, opening=opening, optional_windows=optional_windows, emit_every=emit_every,
        aggregates=aggregates, drain=drain,
    )
    if field_dimension_ranges.applies(prepared.params):
        by_ranges = _by_value_ranges(prepared)
        if by_ranges is not None:
            return by_ranges

    df, schema, params = prepared.df, prepared.schema, prepared.params
    range_parts, coordinate_type = prepared.range_parts, prepared.coordinate_type
    stream = prepared.stream()
    bounds = _check_arrival_order(stream, params, range_parts)
    if bounds["n"] == 0:
        return prepared.empty()

    candidates = _group_candidates(df, params, schema, bounds, coordinate_type)
    emissions = _resolve_emissions(stream, candidates, params, bounds, coordinate_type)
    return _order_emissions(emissions, params, schema, range_parts)


def field_dimension_incremental_spark(
    df,
    previous,
    *,
    field: str,
    aggregates: Mapping[str, Any],
    seq: str,
    size: Any,
    advance: Any = None,
    offset: Any = 0,
    group_by: Sequence[str] | str = (),
    optional_windows: str = "single",
    drain: bool = False,
    partition: Any = None,
    late_rows: str = "error",
    this: str | None = None,
    model: str | None = None,
    partitions: int | None = None,
):
    """The windows that closed since ``previous`` was built: what an incremental run of
    :func:`field_dimension_aggregate_spark` appends (dbt's ``append`` strategy).

    With ``drain=True`` the windows still open at the end of the input are emitted too
    (``emit_kind`` 'drain'), and they are provisional: the next run replaces them. The
    model is then built with ``incremental_strategy='insert_overwrite',
    partition_by=['time_partition']``, and every row carries ``time_partition``: the
    day or the month's first day (``partition='day'`` or ``'month'``, a timestamp field)
    or the bucket of size ``partition`` (a numeric field) of ``emitted_at``, NULL for
    the drained windows. A run returns the drained windows anew, the windows closed
    since, and the closed windows already in the partition of the latest
    ``emitted_at`` (new closes fall in it or later ones): dynamic partition overwrite
    replaces exactly those partitions.

    ``df`` is the whole input so far; ``previous`` the rows emitted before (the model's
    table; None or empty on a first build). Grid windows that only close (a ``size``, no
    ``emit_every``, no ``drain``), so that an emitted row is final and a run only adds
    rows. After any sequence of runs the table holds exactly a full build's rows.

    The state is the table itself: every window ending at or before T, its latest
    ``window_end``, was emitted (a tuple reached T), and none ending later was. A run
    reads the rows with values above ``T - 2*size`` (a window ending after T starts
    after ``T - size``; the ``size`` before it tells whether its first tuple follows a
    gap), emits the windows ending after T that the input now reaches, and numbers
    them on from the table's last ``emit_seq``. One aggregation over the whole input's
    (group, seq, field) columns gives each group's first arrival (the order of windows
    that start together) and checks that no row below the cut arrived after a row
    above it: such a late row fails the run with OutOfOrder, as it fails a full build.

    ``late_rows`` ('error', 'audit' or 'reprocess') and ``this`` (the model's table,
    ``str(dbt.this)``) pick what a row that arrives out of order does
    (:mod:`streamwindows.spark.late_rows`): under 'audit' it goes to
    ``<this>__late_rows`` and stays out of the windows.

    With ``this``, each build records the input partitions' row counts and checksums in
    ``<this>__input_fingerprints`` (committed by the adapter after dbt's write). A
    scheduled run whose already processed rows changed in place fails with
    ChangedInputError, naming the partition; under 'reprocess' it returns a full
    build's rows instead, which the adapter swaps in as the whole table
    (:mod:`streamwindows.spark.fingerprints`).
    """
    def prepare(frame):
        return _prepare(
            frame, seq=seq, model=model, partitions=partitions, field=field, size=size, advance=advance,
            offset=offset, group_by=group_by, opening="advance", optional_windows=optional_windows, emit_every=None,
            aggregates=aggregates, drain=bool(drain),
        )

    prepared = prepare(df)
    policy = late_rows_policy(SPARK_FUNCTION, late_rows, this, time=field, arrival=seq, model=model)
    from pyspark.sql import functions as F

    from streamwindows.spark import field_dimension_ranges

    if not field_dimension_ranges.applies(prepared.params):
        raise InvalidParameterError(SPARK_FUNCTION, "size", "a window size (incremental runs append the windows "
                                    "that close)", size, model=model)
    params = prepared.params
    if not drain and partition is not None:
        raise InvalidParameterError(SPARK_FUNCTION, "partition", "None without drain (closed windows are only "
                                    "appended)", partition, model=model)
    timestamps = params.field_kind == "timestamp"
    if drain:  # the drained windows are replaced by partition
        partition_of = time_partitioner(SPARK_FUNCTION, timestamps, partition, model, "field")
    kept = policy.input_for(df, full=previous is None)
    if kept is not df:  # audited rows left out
        df, prepared = kept, prepare(kept)
    # The input's fingerprints go by the output's partitions, else by day (a timestamp
    # field) or by a hundred windows' span (a numeric one).
    fingerprints = InputFingerprints.of(this, time=field, arrival=seq, partition_of=partition_of if drain else
                                        time_partitioner(SPARK_FUNCTION, timestamps, "day" if timestamps else
                                                         100 * size, model, "field"))

    def checked(full: bool) -> bool:  # True: recompute the whole table ('reprocess' of a changed row)
        return fingerprints.check_and_stage(df, full=full, function=SPARK_FUNCTION, model=model,
                                            reprocess=policy.late_rows == "reprocess")

    def with_partition(frame):
        return frame.withColumn("time_partition", partition_of(F.col("emitted_at"))) if drain else frame

    def full_build():  # the value-range plan, or the general one past its distinct-value limit
        by_ranges = _by_value_ranges(prepared)
        return with_partition(by_ranges if by_ranges is not None else field_dimension_aggregate_spark(
            df, field=field, aggregates=aggregates, seq=seq, size=size, advance=advance, offset=offset,
            group_by=group_by, optional_windows=optional_windows, drain=drain, model=model, partitions=partitions))

    if previous is None:
        checked(full=True)
        return full_build()
    if drain:
        require_time_partition(previous, SPARK_FUNCTION, model)
    from streamwindows.spark.field_dimension_ranges import GROUP_FIRST

    # The drained windows are provisional: the state is the closed ones.
    closed = previous.where(F.col("emit_kind") != F.lit("drain")) if drain else previous

    def coordinate(column: str):
        if params.field_kind == "timestamp":
            return F.unix_micros(F.col(column)) * 1000
        return F.col(column).cast(prepared.coordinate_type)

    width = coordinate("window_end") - coordinate("window_start")
    state = closed.agg(F.max(coordinate("window_end")).alias("closed_until"),
                       F.max("emit_seq").alias("last_emit_seq"), F.max("emitted_at").alias("last_emitted_at"),
                       F.min(width).alias("narrowest"), F.max(width).alias("widest")).first()
    if state["closed_until"] is None:  # nothing emitted yet
        checked(full=True)
        return full_build()

    def same_size(width: Any) -> bool:  # float bounds: end - start rounds
        return width == params.size if params.exact else math.isclose(width, params.size, rel_tol=1e-9)

    if not (same_size(state["narrowest"]) and same_size(state["widest"])):
        raise InvalidParameterError(
            SPARK_FUNCTION, "previous", f"windows of this size ({size}); rebuild the table with --full-refresh "
            "after changing the window", f"windows {state['narrowest']} to {state['widest']} wide "
            f"(in the field's coordinates)", model=model,
        )
    closed_until, last_emit_seq = state["closed_until"], int(state["last_emit_seq"])
    cut = closed_until - 2 * params.size

    stream = prepared.stream()
    below = F.col(VALUE) <= F.lit(cut).cast(prepared.coordinate_type)
    per_group = stream.groupBy(*[F.col(quote(g)) for g in params.group_by]).agg(
        F.min(SEQ).alias(GROUP_FIRST),
        F.max(F.when(below, F.col(SEQ))).alias("last_below"),
        F.min(F.when(~below, F.col(SEQ))).alias("first_above"),
        # A NULL value or seq is neither below nor above the cut: the read below would
        # drop it unseen, so the run fails on it as a full build does.
        F.max((F.col(VALUE).isNull() | F.col(SEQ).isNull()).cast("int")).alias("has_null"),
    ).cache()
    try:
        bounds = per_group.agg(F.max("last_below").alias("below"), F.min("first_above").alias("above"),
                               F.max("has_null").alias("has_null")).first()
        late = None not in (bounds["below"], bounds["above"]) and bounds["below"] > bounds["above"]
        if late or bounds["has_null"]:
            _check_arrival_order(stream, params, prepared.range_parts)  # raises, naming the row
            raise AssertionError("the arrival-order check passed on a late or NULL row")
        # No late row: a difference below what the table holds is a row changed in place,
        # which fails the run or (under 'reprocess') makes it recompute the whole table.
        if checked(full=False):
            return full_build()
        if bounds["above"] is None:  # no row reaches past the cut: nothing can close (or stay open)
            return with_partition(prepared.empty())
        reading = prepared.df.where(prepared.value > F.lit(cut).cast(prepared.coordinate_type))
        group_firsts = per_group.select(*[F.col(quote(g)) for g in params.group_by], GROUP_FIRST)
        result = _by_value_ranges(prepared, reading, group_firsts=group_firsts if params.group_by else None,
                                  starts_after=closed_until - params.size, first_emit_seq=last_emit_seq + 1)
    finally:
        per_group.unpersist()
    if result is None:
        raise InvalidParameterError(
            SPARK_FUNCTION, "df", f"at most {DISTINCT_VALUES_LIMIT:,} distinct field values in the rows an "
            "incremental run reads",
            "more", model=model,
        )
    if not drain:
        return result
    result = with_partition(result)
    # The closed windows already in the latest emitted_at's partition, written again
    # with the new ones (the filter folds to a literal on the partition column, so it
    # reads that partition only; no Spark job to name it).
    kept = closed.where(F.col("time_partition") == partition_of(F.lit(state["last_emitted_at"])))
    return kept.select(*result.columns).unionByName(result)


# ------------------------------------------------------------------------------------
# 2. Arrival order


def _check_arrival_order(stream, params: FieldDimensionParams, parts: int | None) -> dict[str, Any]:
    group_cols = list(params.group_by)
    value_type = "bigint" if params.exact else "double"  # the coordinates, compared exactly
    summary_schema = (
        f"n long, first_seq long, first_value {value_type}, first_group string, "
        f"last_seq long, last_value {value_type}, last_group string, bad_kind string, bad_index long, "
        f"bad_seq long, bad_value {value_type}, bad_previous {value_type}, bad_group string, "
        "bad_previous_group string"
    )
    summary_columns = [field.split()[0] for field in summary_schema.split(", ")]

    def summarize(batches):
        batches = [b for b in batches if len(b)]
        if not batches:  # an empty range partition
            return
        chunk = pd.concat(batches, ignore_index=True)
        seqs, values = chunk[SEQ], chunk[VALUE]

        def group(i: int) -> str:
            return json.dumps({g: plain(chunk[g].iloc[i]) for g in group_cols})

        row = dict.fromkeys(summary_columns)  # NULL unless set; scalars as plain Python values
        row.update({
            "n": len(chunk),
            "first_seq": plain(seqs.iloc[0]), "first_value": plain(values.iloc[0]), "first_group": group(0),
            "last_seq": plain(seqs.iloc[-1]), "last_value": plain(values.iloc[-1]), "last_group": group(-1),
        })
        bad = _first_violation(seqs, values)
        if bad is not None:
            kind, i = bad
            row.update({
                "bad_kind": kind, "bad_index": i, "bad_seq": plain(seqs.iloc[i]),
                "bad_value": plain(values.iloc[i]), "bad_group": group(i),
                "bad_previous": plain(values.iloc[i - 1]) if i > 0 else None,
                "bad_previous_group": group(i - 1) if i > 0 else None,
            })
        yield pd.DataFrame([row], columns=summary_columns, dtype=object)

    parted = stream.repartitionByRange(*([parts] if parts else []), SEQ).sortWithinPartitions(SEQ)
    summaries = [r.asDict() for r in parted.mapInPandas(summarize, summary_schema).collect()]
    # NULL seqs sort first (and are reported); otherwise partitions follow seq.
    summaries.sort(key=lambda r: (r["first_seq"] is not None, r["first_seq"] or 0))
    offset = 0
    previous = None
    for s in summaries:
        if s["bad_kind"] == "null seq" or (s["bad_kind"] is not None and s["bad_index"] == 0):
            _raise(params, s, offset)
        if previous is not None:
            at_boundary = {"bad_index": 0, "bad_seq": s["first_seq"], "bad_group": s["first_group"]}
            if s["first_seq"] == previous["last_seq"]:
                _raise(params, {**s, **at_boundary, "bad_kind": "repeated seq"}, offset)
            if s["first_value"] < previous["last_value"]:
                _raise(params, {**s, **at_boundary, "bad_kind": "decrease", "bad_value": s["first_value"],
                                "bad_previous": previous["last_value"],
                                "bad_previous_group": previous["last_group"]}, offset)
        if s["bad_kind"] is not None:
            _raise(params, s, offset)
        offset += s["n"]
        previous = s
    return {
        "n": offset,
        "first_seq": np.array([s["first_seq"] for s in summaries], dtype=np.int64),
        "last_seq": np.array([s["last_seq"] for s in summaries], dtype=np.int64),
        "first_value": np.array([s["first_value"] for s in summaries], dtype=params.coordinate_dtype),
        "last_value": np.array([s["last_value"] for s in summaries], dtype=params.coordinate_dtype),
        "max_value": summaries[-1]["last_value"] if summaries else None,
    }


def _first_violation(seqs: pd.Series, values: pd.Series) -> tuple[str, int] | None:
    """(kind, index) of the first row in arrival order that breaks the stream's rules.
    Values are compared in their own type (int64 coordinates stay exact)."""
    candidates = []
    null_seq = seqs.isna().to_numpy()
    if null_seq.any():
        candidates.append(("null seq", int(np.argmax(null_seq))))
    missing = values.isna().to_numpy() | ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    if missing.any():
        candidates.append(("null", int(np.argmax(missing))))
    s = seqs.to_numpy()
    repeated = s[1:] == s[:-1]
    if repeated.any():
        candidates.append(("repeated seq", int(np.argmax(repeated)) + 1))
    v = values.to_numpy()
    decreasing = v[1:] < v[:-1]  # NaN compares False: NULLs are reported above
    if decreasing.any():
        candidates.append(("decrease", int(np.argmax(decreasing)) + 1))
    return min(candidates, key=lambda c: c[1]) if candidates else None


def _raise(params: FieldDimensionParams, s: dict, offset: int) -> None:
    position = offset + int(s["bad_index"])
    group = json.loads(s["bad_group"]) if s.get("bad_group") else {}
    kind = s["bad_kind"]
    if kind == "decrease":
        raise OutOfOrderError(
            field=params.field, position=position, group=group, value=s["bad_value"],
            previous_value=s["bad_previous"], seq=s["bad_seq"], previous_position=position - 1,
            previous_group=json.loads(s["bad_previous_group"]) if s.get("bad_previous_group") else None,
            model=params.model,
        )
    if kind == "null":
        raise NullFieldError(field=params.field, position=position, group=group, seq=s["bad_seq"],
                             value=None, model=params.model)
    rule = "unique (each row's arrival position)" if kind == "repeated seq" else "non-NULL"
    raise InvalidParameterError(
        SPARK_FUNCTION, "seq", f"a column whose values are {rule}",
        f"{s['bad_seq']} at arrival position {position}, group {group}", model=params.model,
    )


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


def _group_candidates(df, params: FieldDimensionParams, schema, bounds, coordinate_type: str):
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




def _resolve_emissions(stream, candidates, params: FieldDimensionParams, bounds, coordinate_type: str):
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
    table = spark.sparkContext.broadcast(
        (first_arrivals[VALUE].to_numpy(), first_arrivals[SEQ].to_numpy(np.int64)))

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


# ------------------------------------------------------------------------------------
# 5. Order and output


def _output_schema(params: FieldDimensionParams, schema: dict[str, str], coordinate_type: str) -> str:
    bound_type = "timestamp" if params.field_kind == "timestamp" else (
        "bigint" if params.integer_bounds else "double")
    at_type = "timestamp" if params.field_kind == "timestamp" else schema[params.field]
    fields = [f"{quote(g)} {schema[g]}" for g in params.group_by]
    fields += [f"window_start {bound_type}", f"window_end {bound_type}", "emit_kind string",
               f"emitted_at {at_type}", "emit_seq bigint", "row_count bigint"]
    fields += [f"{quote(a.name)} {aggregate_spark_type(a, schema)}" for a in params.aggregates]
    return ", ".join(fields)


def _order_emissions(emissions, params: FieldDimensionParams, schema: dict[str, str], parts: int | None):
    """The emissions numbered in output order (emit_seq): by the arrival position that
    emitted them (drained windows last), closes before intermediate emissions before
    drains, then window start, the group's first arrival and the emission threshold."""
    from pyspark.sql import functions as F

    phase = F.when(F.col("emit_kind") == "close", 0).when(F.col("emit_kind") == "intermediate", 1).otherwise(2)
    drain_last = F.coalesce(F.col("emitted_position"), F.lit(np.iinfo(np.int64).max))
    keys = [drain_last, phase, F.col("window_start"), F.col("group_first_position"),
            F.coalesce(F.col("emit_threshold"), F.lit(0)).cast("double")]
    return _public_output(numbered(emissions, keys, parts=parts), params, schema)


def _public_output(rows, params: FieldDimensionParams, schema: dict[str, str]):
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
