"""The field dimension on Spark (streamwindows.spark) gives exactly the pandas engine's
output, whatever the number of partitions; its errors name the arrival position, the
group and the values, and invalid parameters fail before any Spark job runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from streamwindows import InvalidParameterError, NullFieldError, OutOfOrderError, field_dimension_aggregate
from streamwindows.spark import field_dimension_aggregate_spark, field_dimension_incremental_spark
from tests.conftest import MANY_EXAMPLES, exact_shuffle_partitions, spark_examples
from tests.engine.field_dimension_cases import (
    AGGREGATES,
    LATE,
    assert_same_emissions,
    opened_late,
    scenarios,
    trades,
)
from tests.engine_spark.streams import random_stream
from tests.engine_spark.tables import overwrite


def spark_frame(spark, frame: pd.DataFrame):
    return spark.createDataFrame(frame) if len(frame) else spark.createDataFrame(
        [], "t double, g long, h string, x long, y double, arrival long")


def on_spark(spark, frame, partitions=None, **options):
    result = field_dimension_aggregate_spark(spark_frame(spark, frame), partitions=partitions, **options)
    return result.toPandas().sort_values("emit_seq", ignore_index=True)


@settings(max_examples=spark_examples(12), deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios())
def test_spark_matches_pandas_engine(spark, scenario):
    spark_matches_pandas_engine(spark, scenario)


@pytest.mark.proof
@settings(max_examples=MANY_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios())
def test_spark_matches_pandas_engine_on_many_streams(spark, scenario):
    """StreamBase's family on many more scenarios. Guarded in `make test` by
    test_spark_matches_pandas_engine (the same check, 12 scenarios)."""
    spark_matches_pandas_engine(spark, scenario)


def spark_matches_pandas_engine(spark, scenario):
    frame, options = scenario
    if "seq" not in options:  # a DataFrame has no row order: give it one
        frame = frame.assign(arrival=np.arange(len(frame)) * 2 + 1)
        options = {**options, "seq": "arrival"}
    expected = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    actual = on_spark(spark, frame, partitions=3, aggregates=AGGREGATES, **options)
    assert_same_emissions(actual[list(expected.columns)], expected, repr(options))


def test_trades_example_on_spark(spark):
    out = on_spark(spark, trades(), field="time", size=30, advance=30, group_by=["symbol"], seq="seq",
                   aggregates={"total_volume": "sum(volume)"})
    assert [tuple(r) for r in out[["symbol", "window_start", "total_volume", "emitted_at", "emit_seq"]]
            .itertuples(index=False)] == [("AMAT", 0, 300, 40, 0), ("AMAT", 30, 400, 65, 1), ("INTC", 30, 400, 65, 2)]


@pytest.mark.parametrize("optional_windows", [pytest.param("single", id="single"), pytest.param("all", id="all")])
def test_window_opened_late_on_spark(spark, optional_windows):
    """docs/semantics.md's late-opened window (tuples 14 then 24, size 20, advance 5,
    emit_every 4): the general plan emits only the points after 14, as the engine does."""
    frame = opened_late().assign(seq=[1, 2])
    options = dict(LATE, optional_windows=optional_windows, seq="seq", aggregates={"total_volume": "sum(volume)"})
    expected = field_dimension_aggregate(frame, **options)
    actual = on_spark(spark, frame, partitions=2, **options)
    assert_same_emissions(actual[list(expected.columns)], expected)
    intermediate = actual[(actual["emit_kind"] == "intermediate") & (actual["window_start"] == 10)]
    assert len(intermediate) == 2  # points 18 and 22, not 14
    assert set(intermediate["emitted_at"]) == {24}


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=30, advance=30), id="tumbling"),
    pytest.param(dict(size=70, advance=10, emit_every=25, drain=True), id="hopping with intermediates and drain"),
    pytest.param(dict(size=7, advance=1, optional_windows="all"), id="all optional windows"),
])
def test_same_output_with_1_2_and_8_partitions(spark, options):
    frame = random_stream()
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)", "n": "count(*)",
                                                                   "high": "max(v)", "first_v": "first(v)"},
                  **options)
    expected = field_dimension_aggregate(frame, **kwargs)
    outputs = []
    for partitions in (1, 2, 8):
        with exact_shuffle_partitions(spark, partitions):
            outputs.append(on_spark(spark, frame, partitions=partitions, **kwargs))
    for out in outputs:
        pd.testing.assert_frame_equal(out.astype(str), outputs[0].astype(str))
    assert_same_emissions(outputs[0][list(expected.columns)], expected)


def test_value_range_tasks_each_get_a_partition_of_their_own(spark):
    """The value-range plan sends task t's rows to partition t through a key that Spark's
    hash partitioning maps there (so no task waits on a sort by task, and none shares a
    partition): checked against Spark's own hash for several task counts."""
    from pyspark.sql import functions as F

    from streamwindows.spark.field_dimension.ranges import _partition_keys

    for tasks in (1, 2, 8, 10, 37):
        keys = _partition_keys(tasks)
        placed = (spark.createDataFrame([(k,) for k in keys], "k int").repartition(tasks, "k")
                  .select(F.spark_partition_id().alias("p"), "k").collect())
        assert sorted((r["p"], r["k"]) for r in placed) == list(enumerate(keys)), tasks


def test_value_range_tasks_sharing_a_partition_each_keep_their_own_range(spark, monkeypatch):
    """Should two tasks' rows ever meet in one partition, each task still computes its
    own range (all four tasks' keys made equal here)."""
    from streamwindows.spark.field_dimension import ranges as field_dimension_ranges

    monkeypatch.setattr(field_dimension_ranges, "_partition_keys", lambda tasks: [7] * tasks)
    frame = random_stream()
    kwargs = dict(field="t", size=70, advance=10, group_by=["g"], seq="seq",
                  aggregates={"total": "sum(v)", "n": "count(*)"})
    expected = field_dimension_aggregate(frame, **kwargs)
    actual = on_spark(spark, frame, partitions=4, **kwargs)
    assert_same_emissions(actual[list(expected.columns)], expected)


def test_value_range_plan_puts_the_session_settings_back(spark):
    """The plan caches its windows uncompressed by setting the session's cache
    compression for that step only: the session's own value is back afterwards (and an
    unset one stays unset), and the windows are still right."""
    key = "spark.sql.inMemoryColumnarStorage.compressed"
    frame = random_stream(n=300)
    kwargs = dict(field="t", size=70, advance=10, group_by=["g"], seq="seq", aggregates={"n": "count(*)"})
    expected = field_dimension_aggregate(frame, **kwargs)
    for setting in ("true", None):
        if setting is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, setting)
        actual = on_spark(spark, frame, partitions=2, **kwargs)
        assert spark.conf.get(key, None) == setting
        assert_same_emissions(actual[list(expected.columns)], expected)
    spark.conf.set(key, "true")


TUMBLING_AGGREGATES = {"total": "sum(v)", "n": "count(*)", "n_labels": "count(label)", "high": "max(v)",
                       "low": "min(v)", "mean": "avg(v)", "first_v": "first(v)", "last_label": "last(label)"}


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=30, advance=30), id="size 30"),
    pytest.param(dict(size=7, advance=7, offset=3, drain=True), id="offset and drain"),
    pytest.param(dict(size=5, advance=5, offset=-2, optional_windows="all"), id="all optional windows"),
])
def test_tumbling_windows_run_as_one_sql_aggregation(spark, options):
    """size = advance over an integer field, aggregates with an exact SQL form: the plan
    is Spark's own aggregation (no Python worker), equal to the pandas engine; 130
    groups put the cells' group bitmaps over three 64-bit words, emit_seq included."""
    frame = random_stream(n=2500, groups=130, seed=21)
    frame["t"] -= 40  # negative values: the cell of v is v - pmod(v - offset, size)
    frame["label"] = np.where(frame.index % 3 == 0, None, "x" + (frame.index % 11).astype(str))
    frame = frame.rename(columns={"g": "rows"})  # a group column named like one of the plan's statistics
    kwargs = dict(field="t", group_by=["rows"], seq="seq", aggregates=TUMBLING_AGGREGATES, **options)
    result = field_dimension_aggregate_spark(spark.createDataFrame(frame), partitions=3, **kwargs)
    plan = result._jdf.queryExecution().executedPlan().toString()
    assert "FlatMapGroupsInPandas" not in plan and "Aggregate(key=[__group_rank__" in plan, plan
    actual = result.toPandas().sort_values("emit_seq", ignore_index=True)
    expected = field_dimension_aggregate(frame, **kwargs)
    assert_same_emissions(actual[list(expected.columns)], expected, repr(options))


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=30, advance=30), id="size 30"),
    pytest.param(dict(size=7, advance=7, offset=3, drain=True), id="offset and drain"),
])
def test_tumbling_windows_without_groups(spark, options):
    """No group_by: one group, numbered by the same bitmaps (one bit a cell), still
    Spark's own aggregation and equal to the pandas engine."""
    frame = random_stream(n=800, seed=5)
    kwargs = dict(field="t", seq="seq", aggregates={"total": "sum(v)", "n": "count(*)", "last_v": "last(v)"},
                  **options)
    result = field_dimension_aggregate_spark(spark.createDataFrame(frame), partitions=3, **kwargs)
    plan = result._jdf.queryExecution().executedPlan().toString()
    assert "InPandas" not in plan, plan
    actual = result.toPandas().sort_values("emit_seq", ignore_index=True)
    expected = field_dimension_aggregate(frame, **kwargs)
    assert_same_emissions(actual[list(expected.columns)], expected, repr(options))


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=70, advance=10), id="70 by 10"),
    pytest.param(dict(size=12, advance=4, offset=-3), id="offset"),
    pytest.param(dict(size=9, advance=3, drain=True), id="drain"),
    pytest.param(dict(size=6, advance=2, offset=1), id="gaps of several sizes"),
])
def test_hopping_windows_of_whole_panes_run_as_sql_and_equal_the_value_range_plan(spark, options, monkeypatch):
    """Under optional_windows='all', size a whole number of advances over an integer
    field, aggregates with an exact SQL form: the windows come from panes in Spark SQL
    (no Python worker) and equal both the value-range plan's (the engine's core in
    Python tasks) and the pandas engine's, emit_seq included, over streams with gaps
    longer than the size. Under 'single' the value-range plan runs."""
    from streamwindows.spark.field_dimension import grid_sql

    frame = random_stream(n=2500, groups=130, seed=23)
    frame["t"] = frame["t"] * 2 - 40  # spread: gaps of 0 to over the size; negative values
    frame["label"] = np.where(frame.index % 3 == 0, None, "x" + (frame.index % 11).astype(str))
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates=TUMBLING_AGGREGATES, optional_windows="all",
                  **options)
    result = field_dimension_aggregate_spark(spark.createDataFrame(frame), partitions=3, **kwargs)
    plan = result._jdf.queryExecution().executedPlan().toString()
    assert "InPandas" not in plan and "__pane__" in plan, plan
    single = field_dimension_aggregate_spark(spark.createDataFrame(frame), partitions=3,
                                             **{**kwargs, "optional_windows": "single"})
    assert "InPandas" in single._jdf.queryExecution().executedPlan().toString()
    actual = result.toPandas().sort_values("emit_seq", ignore_index=True)
    expected = field_dimension_aggregate(frame, **kwargs)
    assert_same_emissions(actual[list(expected.columns)], expected, repr(options))

    monkeypatch.setattr(grid_sql, "applies", lambda *args, **kwargs: False)
    by_ranges = field_dimension_aggregate_spark(spark.createDataFrame(frame), partitions=3, **kwargs)
    assert "InPandas" in by_ranges._jdf.queryExecution().executedPlan().toString()
    pd.testing.assert_frame_equal(actual.astype(str), by_ranges.toPandas().sort_values(
        "emit_seq", ignore_index=True).astype(str))


def test_out_of_order_names_position_group_and_values(spark):
    frame = random_stream(n=500)
    frame.loc[321, "t"] = frame.loc[320, "t"] - 2  # goes backwards at arrival position 321
    with pytest.raises(OutOfOrderError) as raised:
        on_spark(spark, frame, partitions=4, field="t", size=30, group_by=["g"], seq="seq",
                 aggregates={"total": "sum(v)"}, model="trade_volume_30s")
    error = raised.value
    assert (error.position, error.seq, error.value, error.previous_value) == (
        321, int(frame.loc[321, "seq"]), int(frame.loc[321, "t"]), int(frame.loc[320, "t"]))
    assert error.group == {"g": frame.loc[321, "g"]}
    assert str(error).startswith("model 'trade_volume_30s': OutOfOrder: field `t` went backwards at arrival "
                                 f"position {frame.loc[321, 'seq']} in group")


def test_out_of_order_across_a_partition_boundary(spark):
    frame = pd.DataFrame({"seq": [1, 2, 3, 4], "t": [5, 9, 8, 10], "g": ["a", "b", "a", "b"], "v": [1, 1, 1, 1]})
    with pytest.raises(OutOfOrderError) as raised:
        on_spark(spark, frame, partitions=4, field="t", size=3, group_by=["g"], seq="seq",
                 aggregates={"n": "count(*)"})
    assert (raised.value.position, raised.value.value, raised.value.previous_value, raised.value.group) == (
        2, 8, 9, {"g": "a"})


def test_null_field_is_an_error(spark):
    frame = pd.DataFrame({"seq": [1, 2, 3], "t": [1.0, None, 3.0], "g": ["a", "b", "a"], "v": [1, 2, 3]})
    with pytest.raises(NullFieldError) as raised:
        on_spark(spark, frame, field="t", size=3, group_by=["g"], seq="seq", aggregates={"n": "count(*)"})
    assert (raised.value.position, raised.value.seq, raised.value.group) == (1, 2, {"g": "b"})


def test_repeated_seq_is_an_error(spark):
    frame = pd.DataFrame({"seq": [1, 2, 2], "t": [1, 2, 3], "g": ["a", "b", "a"], "v": [1, 2, 3]})
    # In the SQL macros' words, the position named by its seq value.
    with pytest.raises(InvalidParameterError, match=r"^field_dimension_aggregate_spark\(\): `seq` must be a column "
                       r"whose values are unique \(each row's arrival position\); got seq 2 twice in group "
                       r"\{'g': 'a'\}\.$"):
        on_spark(spark, frame, field="t", size=3, group_by=["g"], seq="seq", aggregates={"n": "count(*)"})


def test_repeated_seq_within_one_value_is_an_error(spark):
    # Same value, same seq: invisible to the check over distinct values, found by the
    # task that computes the windows.
    frame = pd.DataFrame({"seq": [1, 2, 2, 4], "t": [1, 2, 2, 3], "g": ["a", "b", "a", "b"], "v": [1, 2, 3, 4]})
    with pytest.raises(InvalidParameterError, match=r"got seq 2 twice in group \{'g': 'a'\}\.$"):
        on_spark(spark, frame, field="t", size=3, group_by=["g"], seq="seq", aggregates={"n": "count(*)"})


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=7, advance=3, offset=1, optional_windows="all"), id="hopping"),
    pytest.param(dict(size=7, advance=7, offset=1), id="tumbling"),
])
def test_incremental_runs_append_exactly_a_full_builds_rows(spark, options):
    """Batch after batch (cuts at random, one across a gap longer than the size), the
    appended rows end up equal to one full build, emit_seq included. Hopping windows with
    optional windows 'all' and an offset (value-range tasks), tumbling windows (one SQL
    aggregation); the replay harness (tests/incremental) runs 'single' on real data."""
    frame = random_stream(n=1500, groups=5, seed=3)
    frame.loc[700:, "t"] += 200  # a gap in every group
    frame.loc[frame.index % 7 == 0, "g"] = None  # NULL keys form a group
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)", "first_v": "first(v)"},
                  **options)
    expected = on_spark(spark, frame, **kwargs)
    rng = np.random.default_rng(5)
    table = None
    for cut in [*sorted(rng.choice(np.arange(1, 1500), 4, replace=False)), 699, 701, 1500]:
        batch = field_dimension_incremental_spark(spark_frame(spark, frame.iloc[:cut]), table, **kwargs)
        table = batch if table is None else table.unionByName(batch)
        table = spark.createDataFrame(table.toPandas(), table.schema)  # what the model's table holds
    built = table.toPandas().sort_values("emit_seq", ignore_index=True)
    pd.testing.assert_frame_equal(built.astype(str), expected.astype(str))


@pytest.mark.parametrize("options", [
    pytest.param(dict(size=7, advance=3, offset=1, optional_windows="all", drain=True), id="hopping"),
    pytest.param(dict(size=7, advance=7, offset=1, drain=True), id="tumbling"),
])
def test_incremental_runs_with_drain_replace_the_drained_windows(spark, options):
    """drain=True: each run's drained windows are provisional. Runs overwrite the
    partitions of emitted_at (NULL for drained windows) and end equal to one full build
    with drain, emit_seq included; a cut on a window's end, one across a gap and runs
    that close nothing included."""
    frame = random_stream(n=1200, groups=5, seed=11)
    frame.loc[600:, "t"] += 200  # a gap in every group
    frame.loc[frame.index % 9 == 0, "g"] = None
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)", "last_v": "last(v)"},
                  **options)
    expected = on_spark(spark, frame, **kwargs)
    rng = np.random.default_rng(9)
    table = None
    cuts = [*sorted(rng.choice(np.arange(1, 1200), 5, replace=False)), 599, 600, 601, 601, 1200]
    for cut in cuts:
        batch = field_dimension_incremental_spark(
            spark_frame(spark, frame.iloc[:cut]), None if table is None else spark.createDataFrame(table),
            partition=25, **kwargs).toPandas()
        assert batch["time_partition"].isna().eq(batch["emit_kind"] == "drain").all()
        table = overwrite(table, batch)
    built = table.sort_values("emit_seq", ignore_index=True)
    assert (built["emit_kind"] == "drain").sum() > 0
    assert (built["time_partition"].dropna() == np.floor(built["emitted_at"].dropna() / 25) * 25).all()
    pd.testing.assert_frame_equal(built.drop(columns="time_partition").astype(str), expected.astype(str))


@pytest.mark.parametrize(("options", "message"), [
    pytest.param(dict(drain=True), r"`partition` must be a number > 0 \(the field is numeric\)",
                 id="drain without partition"),
    pytest.param(dict(drain=True, partition="day"), r"`partition` must be a number > 0", id="day for a numeric field"),
    pytest.param(dict(partition=10), r"`partition` must be None without drain", id="partition without drain"),
])
def test_incremental_drain_parameters(spark, options, message):
    frame = spark_frame(spark, random_stream(n=10))
    with pytest.raises(InvalidParameterError, match=message):
        field_dimension_incremental_spark(frame, None, field="t", seq="seq", size=5, aggregates={"n": "count(*)"},
                                          **options)


def test_incremental_run_fails_on_a_late_row(spark):
    frame = random_stream(n=600)
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)"}, size=30, advance=10)
    table = field_dimension_incremental_spark(spark_frame(spark, frame.iloc[:500]), None, **kwargs)
    late = pd.concat([frame.iloc[:500], frame.iloc[[20]].assign(seq=10**6)], ignore_index=True)  # far below the cut
    with pytest.raises(OutOfOrderError) as raised:
        field_dimension_incremental_spark(spark_frame(spark, late), table, **kwargs)
    assert (raised.value.position, raised.value.seq) == (500, 10**6)


def test_incremental_run_fails_on_a_null_field_in_a_new_batch(spark):
    """The run reads the rows above its cut (t > cut): a NULL (not NaN) would fall out
    of that filter unseen, so the run fails on it as a full build does."""
    from pyspark.sql import functions as F

    frame = random_stream(n=600)
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)"}, size=30, advance=10)
    table = field_dimension_incremental_spark(spark_frame(spark, frame.iloc[:500]), None, **kwargs)
    batch = pd.concat([frame.iloc[:550], frame.iloc[[520]].assign(seq=10**6)], ignore_index=True)
    with_null = spark_frame(spark, batch).withColumn(
        "t", F.when(F.col("seq") == 10**6, F.lit(None)).otherwise(F.col("t")))
    with pytest.raises(NullFieldError) as raised:
        field_dimension_incremental_spark(with_null, table, **kwargs)
    assert (raised.value.seq, raised.value.value, raised.value.group) == (10**6, None, {"g": frame["g"].iloc[520]})


def test_incremental_run_refuses_a_table_built_with_another_size(spark):
    frame = spark_frame(spark, random_stream(n=300))
    kwargs = dict(field="t", group_by=["g"], seq="seq", aggregates={"total": "sum(v)"}, advance=10)
    table = spark.createDataFrame(field_dimension_incremental_spark(frame, None, size=30, **kwargs).toPandas())
    with pytest.raises(InvalidParameterError, match=r"`previous` must be windows of this size \(40\)"):
        field_dimension_incremental_spark(frame, table, size=40, **kwargs)


def test_incremental_runs_need_a_size(spark):
    frame = spark_frame(spark, random_stream(n=10))
    with pytest.raises(InvalidParameterError, match="`size` must be a window size"):
        field_dimension_incremental_spark(frame, None, field="t", seq="seq", size=None, aggregates={"n": "count(*)"})


@pytest.mark.parametrize(("options", "message"), [
    pytest.param(dict(size=10, advance=20), "`advance` must be", id="advance larger than size"),
    pytest.param(dict(advance=5), "`advance`", id="advance without size"),
    pytest.param(dict(size=0), "`size` must be", id="size zero"),
    pytest.param(dict(size=10, opening="sometimes"), "`opening` must be", id="unknown opening"),
    pytest.param(dict(size=10, aggregates={"n": "sum(price)"}), "price", id="aggregate over a missing column"),
    pytest.param(dict(size=10, seq=None), "`seq` must be the arrival-order column", id="no arrival order"),
])
def test_invalid_parameters_fail_before_any_spark_job(spark, options, message):
    frame = spark.createDataFrame(trades())
    context = spark.sparkContext
    context.setJobGroup("invalid-parameters", "must run no job")
    kwargs = dict(field="time", group_by=["symbol"], seq="seq", aggregates={"n": "count(*)"})
    with pytest.raises(InvalidParameterError, match=message):
        field_dimension_aggregate_spark(frame, **{**kwargs, **options})
    assert list(context.statusTracker().getJobIdsForGroup("invalid-parameters")) == []
    context.setJobGroup(None, None)
