"""The field dimension's Spark calls: :func:`field_dimension_aggregate_spark` and
:func:`field_dimension_incremental_spark`, each validated on the driver before any Spark
job (step 1) and run by the value-range plan or the general plan (the package's
docstring describes both)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamwindows.errors import InvalidParameterError
from streamwindows.field_dimension import FieldDimensionParams, validate_parameters
from streamwindows.spark.columns import PANDAS_TYPES, SEQ, VALUE, aggregate_spark_type, quote
from streamwindows.spark.field_dimension.arrival_order import SPARK_FUNCTION, check_arrival_order
from streamwindows.spark.field_dimension.general_plan import group_candidates, resolve_emissions
from streamwindows.spark.field_dimension.output import order_emissions, output_schema, public_output
from streamwindows.spark.field_dimension.ranges import DISTINCT_VALUES_LIMIT
from streamwindows.spark.fingerprints import InputFingerprints, describe_call
from streamwindows.spark.incremental import any_row, nothing_written, require_time_partition, time_partitioner
from streamwindows.spark.late_rows import late_rows_policy


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
        return self.spark.createDataFrame([], output_schema(self.params, self.schema, self.coordinate_type))


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
    from streamwindows.spark.field_dimension import ranges as field_dimension_ranges

    p = prepared
    return field_dimension_ranges.grid_windows_by_value_ranges(
        p.df if frame is None else frame, p.params, p.schema, value=p.value, seq_column=p.params.seq,
        coordinate_type=p.coordinate_type, n_parts=p.n_parts,
        check_arrival_order=lambda checked: check_arrival_order(checked, p.params, p.range_parts),
        public_output=lambda rows: public_output(rows, p.params, p.schema),
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
    from streamwindows.spark.field_dimension import ranges as field_dimension_ranges

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
    bounds = check_arrival_order(stream, params, range_parts)
    if bounds["n"] == 0:
        return prepared.empty()

    candidates = group_candidates(df, params, schema, bounds, coordinate_type)
    emissions = resolve_emissions(stream, candidates, params, bounds, coordinate_type)
    return order_emissions(emissions, params, schema, range_parts)


def _closed_state(closed, coordinate) -> dict | None:
    """The closed windows' state (closed_until: the latest window_end, last_emit_seq,
    last_emitted_at, the narrowest and widest window), None when there is none. The
    closed windows are numbered 0..n-1 in emission order and the latest end is among
    the windows of the last emission, numbered last: so their count (from the files'
    footers), the last one's emitted_at and that emission's windows give it without
    reading the table. The windows are found by emit_seq, from n - span on (span
    widened until the emission's first window is inside): a filter Parquet applies to
    the files and row groups, where one on emitted_at prunes nothing (an INT96
    timestamp, Spark's default, has no statistics it uses). A table not numbered so is
    read whole."""
    from pyspark.sql import functions as F

    width = coordinate("window_end") - coordinate("window_start")

    def state_of(windows) -> dict:
        return windows.agg(F.max(coordinate("window_end")).alias("closed_until"),
                           F.max("emit_seq").alias("last_emit_seq"), F.min("emit_seq").alias("first_emit_seq"),
                           F.max("emitted_at").alias("last_emitted_at"),
                           F.min(width).alias("narrowest"), F.max(width).alias("widest")).first().asDict()

    n = closed.count()
    if n == 0:
        return None
    last = closed.where(F.col("emit_seq") == F.lit(n - 1)).select("emitted_at").collect()
    span = 4096
    while len(last) == 1:
        low = max(n - span, 0)
        state = state_of(closed.where((F.col("emit_seq") >= F.lit(low))
                                      & (F.col("emitted_at") == F.lit(last[0]["emitted_at"]))))
        if state["last_emit_seq"] != n - 1:  # not numbered 0..n-1
            break
        if state["first_emit_seq"] > low or low == 0:  # the emission's first window is inside
            return state
        span *= 16
    return state_of(closed)


def _above(prepared: _Prepared, cut):
    """The rows above the cut (a coordinate): the exact comparison, and one on the field
    itself that Parquet applies to its files and row groups (implied by the first)."""
    from pyspark.sql import functions as F

    p = prepared.params
    exact = prepared.value > F.lit(cut).cast(prepared.coordinate_type)
    if p.field_kind == "timestamp":  # coordinates are nanoseconds: above cut iff micros above floor(cut / 1000)
        return exact & (F.col(quote(p.field)) > F.timestamp_micros(F.lit(int(cut) // 1000)))
    return exact


def _field_at(prepared: _Prepared, cut):
    """A value of the field at or below the cut (a coordinate): every row above the cut
    has a field at or after it."""
    from pyspark.sql import functions as F

    if prepared.params.field_kind == "timestamp":
        return F.timestamp_micros(F.lit(int(cut) // 1000))
    return F.lit(cut).cast(prepared.coordinate_type)


def _placeable(prepared: _Prepared, new, cut) -> bool:
    """Whether every new row lies above the cut with a field value and an arrival
    position: one aggregation over the new rows."""
    from pyspark.sql import functions as F

    trouble = (F.col(quote(prepared.params.seq)).isNull() | prepared.value.isNull()
               | ~_above(prepared, cut))
    return not any_row(new, trouble)


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

    from streamwindows.spark.field_dimension import ranges as field_dimension_ranges

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
                                                         100 * size, model, "field"),
                                        call=describe_call(field=field, aggregates=aggregates, seq=seq, size=size,
                                                           advance=advance, offset=offset, group_by=group_by,
                                                           optional_windows=optional_windows, drain=drain,
                                                           partition=partition),
                                        first_arrivals=params.group_by)

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
    if fingerprints.nothing_new(df):  # the table equals a full build over this input
        return nothing_written(previous)
    from streamwindows.spark.field_dimension.ranges import GROUP_FIRST

    # The drained windows are provisional: the state is the closed ones.
    closed = previous.where(F.col("emit_kind") != F.lit("drain")) if drain else previous

    def coordinate(column: str):
        if params.field_kind == "timestamp":
            return F.unix_micros(F.col(column)) * 1000
        return F.col(column).cast(prepared.coordinate_type)

    state = _closed_state(closed, coordinate)
    if state is None:  # nothing emitted yet
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
    at_cut = F.lit(cut).cast(prepared.coordinate_type)
    # Over a history the input-file record shows unchanged (processed in order, without
    # a NULL), a late row can only be a new one: any new row at or below the cut (the
    # rows above it are checked as the run reads them). One aggregation over the new
    # rows (Parquet skips the files holding none) tells; the group firsts come with the
    # fingerprints. Else (or to name a late row) the whole input is checked.
    history = fingerprints.history(df, full=False) if fingerprints.table is not None else None
    if history is not None and history.unchanged and _placeable(prepared, fingerprints.new_rows(df), cut):
        checked(full=False)
        group_firsts = fingerprints.group_firsts(prepared.df, GROUP_FIRST)
        above = True
    else:
        per_group = stream.groupBy(*[F.col(quote(g)) for g in params.group_by]).agg(
            F.min(SEQ).alias(GROUP_FIRST),
            F.max(F.when(F.col(VALUE) <= at_cut, F.col(SEQ))).alias("last_below"),
            F.min(F.when(F.col(VALUE) > at_cut, F.col(SEQ))).alias("first_above"),
            # A NULL value or seq is neither below nor above the cut: the read below would
            # drop it unseen, so the run fails on it as a full build does.
            F.max((F.col(VALUE).isNull() | F.col(SEQ).isNull()).cast("int")).alias("has_null"),
        ).cache()
        try:
            bounds = per_group.agg(F.max("last_below").alias("below"), F.min("first_above").alias("above"),
                                   F.max("has_null").alias("has_null")).first()
            late = None not in (bounds["below"], bounds["above"]) and bounds["below"] > bounds["above"]
            if late or bounds["has_null"]:
                check_arrival_order(stream, params, prepared.range_parts)  # raises, naming the row
                raise AssertionError("the arrival-order check passed on a late or NULL row")
            # No late row: a difference below what the table holds is a row changed in place,
            # which fails the run or (under 'reprocess') makes it recompute the whole table.
            if checked(full=False):
                return full_build()
            group_firsts = per_group.select(*[F.col(quote(g)) for g in params.group_by], GROUP_FIRST).collect()
            above = bounds["above"] is not None
        finally:
            per_group.unpersist()
    if not above:  # no row reaches past the cut: nothing can close (or stay open)
        return with_partition(prepared.empty())
    # The arrival floor (when the history is as recorded) lets Parquet skip the history.
    reading = prepared.df.where(_above(prepared, cut) & fingerprints.arrival_floor(df, _field_at(prepared, cut)))
    result = _by_value_ranges(prepared, reading, group_firsts=group_firsts if params.group_by else None,
                              starts_after=closed_until - params.size, first_emit_seq=last_emit_seq + 1)
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
