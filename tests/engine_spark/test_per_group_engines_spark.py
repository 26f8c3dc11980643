"""Count windows and interval semantics on Spark (whole groups, many per engine call) give
the pandas engine's rows, whatever the number of partitions and however the calls are
cut; NULL group keys are a group; parameters are checked on the driver before any Spark
job. Interval pieces are emitted over the whole stream (groups share time), emit_seq
included, and a stream out of order across groups fails as in the pandas engine."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows import (
    InvalidParameterError,
    OutOfOrderError,
    count_window_aggregate,
    interval_aggregate,
    time_weighted_average,
)
from streamwindows.interval_semantics import interval_pieces
from streamwindows.spark import count_window_aggregate_spark, interval_aggregate_spark
from streamwindows.spark.per_group import apply_per_group
from streamwindows.spark.session import session_setting
from tests.conftest import MANY_EXAMPLES, exact_shuffle_partitions, spark_examples
from tests.engine.reference_field_dimension import rows
from tests.engine_spark.conftest import PLANS
from tests.engine_spark.streams import SCHEMA, events, ordered_events
from tests.engine_spark.tables import same_ordered_rows, same_rows


@settings(max_examples=spark_examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=events(), n=st.integers(1, 3))
def test_count_window_on_spark_equals_pandas(spark, frame, n):
    options = dict(time="t0", end="t1", n=n, group_by="g", arrival="seq", aggregates={"s": "sum(v)", "k": "count(*)"},
                   user_aggregates={"twa": time_weighted_average("v")})
    with exact_shuffle_partitions(spark, 3):
        actual = count_window_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options).toPandas()
    same_ordered_rows(actual, count_window_aggregate(frame, **options))  # emit_seq included


@settings(max_examples=spark_examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=ordered_events(), drain=st.booleans(), latency=st.booleans())
def test_interval_semantics_on_spark_equals_pandas(spark, frame, drain, latency):
    interval_semantics_on_spark_equals_pandas(spark, frame, drain, latency)


@pytest.mark.proof
@settings(max_examples=MANY_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=ordered_events(), drain=st.booleans(), latency=st.booleans())
def test_interval_semantics_on_spark_equals_pandas_on_many_streams(spark, frame, drain, latency):
    """Odysseus's family on many more streams. Guarded in `make test` by
    test_interval_semantics_on_spark_equals_pandas (the same check, 8 streams, 4 in `make test`)."""
    interval_semantics_on_spark_equals_pandas(spark, frame, drain, latency)


def interval_semantics_on_spark_equals_pandas(spark, frame, drain, latency):
    options = dict(start="t0", end="t1", group_by="g", arrival="seq", drain=drain, latency_optimized=latency,
                   aggregates={"n": "count(*)", "s": "sum(v)", "hi": "max(v)"})
    with exact_shuffle_partitions(spark, 3):
        actual = interval_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options).toPandas()
    same_ordered_rows(actual, interval_aggregate(frame, **options))


def a_then_b() -> pd.DataFrame:
    """docs/semantics.md's groups sharing time (A's [0, 10), then B's [20, 25)), then
    more of both and a third group: ties across groups, a piece that exists only once its
    own group's event at 30 arrives after another group's, a gap, a NULL key."""
    return pd.DataFrame({
        "seq": [1, 2, 3, 4, 5, 6, 7, 8, 9],
        "g": ["A", "B", "C", "A", "B", "A", None, "C", "A"],
        "t0": [0, 20, 20, 22, 30, 30, 30, 60, 61],
        "t1": [10, 25, 40, 35, 31, 33, 31, 62, 70],
        "v": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, None, 8.0, 9.0],
    })


@pytest.mark.parametrize("interval_plan", PLANS, indirect=True)
@pytest.mark.parametrize("drain", [pytest.param(False, id="drain=False"), pytest.param(True, id="drain=True")])
def test_interval_groups_share_time_on_spark(spark, drain, interval_plan):
    options = dict(start="t0", end="t1", group_by="g", arrival="seq", drain=drain,
                   aggregates={"n": "count(*)", "s": "sum(v)"})
    frame = a_then_b()
    with exact_shuffle_partitions(spark, 4):
        actual = interval_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options).toPandas()
    same_ordered_rows(actual, interval_aggregate(frame, **options))
    first = rows(actual.sort_values("emit_seq"), ["g", "window_start", "window_end", "emit_kind", "emitted_at"])[0]
    assert first == ("A", 0, 10, "close", 20)  # emitted by B's event at 20, whatever drain


@pytest.mark.parametrize("interval_plan", [PLANS[0], PLANS[2]], indirect=True)
def test_interval_out_of_order_across_groups_fails_on_spark(spark, interval_plan):
    """A's [0, 10), B's [20, 25), then A's event at 15: in order within A, not as one
    stream. The error names both events, as the pandas engine's does."""
    frame = pd.DataFrame({"seq": [1, 2, 3, 4], "g": ["A", "B", "A", "B"], "t0": [0, 20, 15, 30],
                          "t1": [10, 25, 18, 31], "v": [1.0, 2.0, 3.0, 4.0]})
    options = dict(start="t0", end="t1", group_by="g", arrival="seq", aggregates={"n": "count(*)"},
                   model="validity")
    with pytest.raises(OutOfOrderError) as expected:
        interval_aggregate(frame, **options)
    with exact_shuffle_partitions(spark, 2), pytest.raises(OutOfOrderError) as actual:
        interval_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options)
    assert str(actual.value) == str(expected.value) == (
        "model 'validity': OutOfOrder: field `t0` went backwards at arrival position 3 in group "
        "{'g': 'A'}: value 15 is less than the previous value 20 (arrival position 2, group {'g': 'B'}). The "
        "field must not decrease in arrival order."
    )


@settings(max_examples=spark_examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=events(), partitions=st.sampled_from([1, 2, 8]), batch_rows=st.integers(1, 8))
def test_engine_calls_are_cut_between_whole_groups(spark, frame, partitions, batch_rows):
    """Arrow batches of 2 rows and cuts every few rows: a call never splits a group (the
    interval pieces of each group, which depend on its own events only)."""
    options = dict(start="t0", end="t1", group_by=["g"], arrival="seq", aggregates={"n": "count(*)", "s": "sum(v)"})
    with (exact_shuffle_partitions(spark, partitions),
          session_setting(spark, "spark.sql.execution.arrow.maxRecordsPerBatch", "2")):
        actual = apply_per_group(spark.createDataFrame(frame, SCHEMA), interval_pieces, options,
                                 group_by=["g"], time_columns=("window_start", "window_end"),
                                 time_source="t0", order_by=["seq"], batch_rows=batch_rows).toPandas()
    same_rows(actual, interval_pieces(frame, **options), ["g", "window_start"])


def test_dump_at_value_count_is_refused_on_spark(spark):
    frame = spark.createDataFrame(pd.DataFrame({"seq": [1], "g": ["a"], "t0": [0], "t1": [1], "v": [1.0]}), SCHEMA)
    with pytest.raises(InvalidParameterError, match="`dump_at_value_count` must be None on Spark"):
        interval_aggregate_spark(frame, start="t0", end="t1", aggregates={"n": "count(*)"}, dump_at_value_count=2)


def test_invalid_parameter_fails_on_the_driver(spark):
    frame = spark.createDataFrame(pd.DataFrame({"seq": [1], "g": ["a"], "t0": [0], "t1": [1], "v": [1.0]}), SCHEMA)
    with pytest.raises(InvalidParameterError, match="`n` must be an integer >= 1"):
        count_window_aggregate_spark(frame, time="t0", n=0, aggregates={"k": "count(*)"})


LIST_AGGREGATES = {"values": "nest(v)", "distinct_values": "distinctnest(v)"}


def lists_frame() -> pd.DataFrame:
    return pd.DataFrame({"seq": [1, 2, 3], "g": ["a", "a", "a"], "t0": [0, 0, 1], "t1": [2, 2, 3],
                         "v": [1.5, 1.5, None]})


def _as_lists(frame: pd.DataFrame) -> list[tuple]:
    """The list columns as plain Python lists, NaN as None (Spark gives arrays, the
    pandas engine lists or numpy arrays)."""
    def plain(values):
        return None if values is None else [None if pd.isna(v) else float(v) for v in values]

    return [tuple(plain(v) for v in row) for row in frame[list(LIST_AGGREGATES)].itertuples(index=False)]


@pytest.mark.parametrize("engine", ["count window", "interval semantics", "field dimension"])
def test_nest_and_distinctnest_come_out_as_arrays_of_the_input_type(spark, engine):
    """nest and distinctnest through the Spark layer: an array<double> column (the input's
    type), each row the pandas engine's list, NULLs kept (distinctnest keeps one)."""
    from streamwindows import field_dimension_aggregate
    from streamwindows.spark import field_dimension_aggregate_spark

    frame = lists_frame()
    if engine == "count window":
        options = dict(time="t0", n=2, group_by="g", arrival="seq", aggregates=LIST_AGGREGATES)
        actual = count_window_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options)
        expected = count_window_aggregate(frame, **options)
    elif engine == "interval semantics":
        options = dict(start="t0", end="t1", group_by="g", arrival="seq", aggregates=LIST_AGGREGATES)
        actual = interval_aggregate_spark(spark.createDataFrame(frame, SCHEMA), **options)
        expected = interval_aggregate(frame, **options)
    else:
        options = dict(field="t0", size=1, group_by="g", aggregates=LIST_AGGREGATES, drain=True)
        actual = field_dimension_aggregate_spark(spark.createDataFrame(frame, SCHEMA), seq="seq", **options)
        expected = field_dimension_aggregate(frame, **options)
    types = {f.name: f.dataType.simpleString() for f in actual.schema.fields}
    assert [types[name] for name in LIST_AGGREGATES] == ["array<double>", "array<double>"]
    got = actual.toPandas()
    order = ["emit_seq"] if "emit_seq" in got.columns else ["point_at"]
    assert _as_lists(got.sort_values(order, ignore_index=True)) == _as_lists(expected)
    assert _as_lists(expected)  # the engine emitted rows to compare
