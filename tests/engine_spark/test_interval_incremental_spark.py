"""Interval semantics in scheduled runs (interval_aggregate_incremental_spark): batch
after batch, with each run's rows written by dynamic partition overwrite (as dbt's
insert_overwrite does), the table ends equal to one full build, whatever the cuts; a
late row fails the run with the OutOfOrder error of a full build."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows import InvalidParameterError, NullFieldError, OutOfOrderError
from streamwindows.spark import interval_aggregate_incremental_spark
from tests.conftest import exact_shuffle_partitions, spark_examples
from tests.engine.reference_field_dimension import rows
from tests.engine_spark import tables
from tests.engine_spark.conftest import PLANS
from tests.engine_spark.streams import SCHEMA, long_stream, ordered_events, with_a_new_null
from tests.engine_spark.tables import same_ordered_rows, same_rows

OPTIONS = dict(start="t0", end="t1", group_by="g", arrival="seq", partition=5,
               aggregates={"n": "count(*)", "s": "sum(v)", "hi": "max(v)", "first_v": "first(v)", "last_v": "last(v)"})


def build_in_batches(spark, frame: pd.DataFrame, cuts, input_schema=SCHEMA, **options) -> pd.DataFrame:
    return tables.build_in_batches(spark, interval_aggregate_incremental_spark, frame, cuts, input_schema, **options)


def full_build(spark, frame: pd.DataFrame, input_schema=SCHEMA, **options) -> pd.DataFrame:
    return interval_aggregate_incremental_spark(spark.createDataFrame(frame, input_schema), None,
                                                **options).toPandas()


@settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=ordered_events(), data=st.data())
def test_batches_equal_a_full_build(spark, frame, data):
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(frame)), max_size=3)))) + [len(frame)]
    built = build_in_batches(spark, frame, cuts, **OPTIONS)
    expected = full_build(spark, frame, **OPTIONS)
    same_rows(built, expected, ["g", "window_start"])
    # emit_seq too: the rows kept from earlier runs come first, the recomputed ones after
    same_ordered_rows(built[list(expected.columns)], expected.sort_values("emit_seq", ignore_index=True))


# The distinct starts' plan is the one test_batches_equal_a_full_build runs on random
# cuts in `make test`: here it is a `proof` case; the general plan is not.
@pytest.mark.parametrize("interval_plan", [pytest.param(*PLANS[0].values, id=PLANS[0].id, marks=pytest.mark.proof),
                                           PLANS[2]], indirect=True)
def test_many_groups_across_a_gap_equal_a_full_build(spark, interval_plan):
    frame = long_stream()
    cuts = [150, 151, 700, 1199, 1201, 1600, 2000]  # one just past the gap, tied starts at 150/151
    with exact_shuffle_partitions(spark, 8):  # the groups and the arrival ranges over 8 partitions
        built = build_in_batches(spark, frame, cuts, **OPTIONS)
        expected = full_build(spark, frame, **OPTIONS)
    assert len(built) == len(expected) > 2000
    # Open pieces in several groups; the others' pieces were all closed by other groups'
    # events (time is shared), so their new events recompute from the latest start.
    open_groups = expected.loc[expected["emit_kind"] == "drain", "g"].nunique(dropna=False)
    assert 1 < open_groups < frame["g"].nunique(dropna=False)
    same_rows(built, expected, ["g", "window_start"])
    assert sorted(built["emit_seq"]) == list(range(len(built)))
    same_ordered_rows(built[list(expected.columns)], expected.sort_values("emit_seq", ignore_index=True))


def comparable(frame: pd.DataFrame) -> pd.DataFrame:
    """Times as seconds and dates as text (pytest.approx compares numbers, NaN too)."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[column]):
            out[column] = (out[column] - pd.Timestamp(0)).dt.total_seconds()
        elif column == "time_partition":
            out[column] = out[column].map(lambda d: None if pd.isna(d) else str(d))
    return out


def test_month_partitions_over_timestamps_equal_a_full_build(spark):
    """partition='month' over timestamps: time_partition is the first day of emitted_at's
    month (NULL for the open pieces), and batches cut mid-month, one row apart and
    across the month ends equal one full build."""
    frame = long_stream(n=600, groups=5)
    hours = pd.to_timedelta(6, unit="h")
    start = pd.Timestamp("2010-01-20")
    frame["t0"], frame["t1"] = start + frame["t0"] * hours, start + frame["t1"] * hours
    options = dict(OPTIONS, partition="month")
    schema = "seq long, g string, t0 timestamp, t1 timestamp, v double"
    built = build_in_batches(spark, frame, [150, 151, 300, 450, 600], schema, **options)
    expected = full_build(spark, frame, schema, **options)
    same_rows(comparable(built), comparable(expected), ["g", "window_start"])
    closed = expected[expected["emitted_at"].notna()]
    months = {d.strftime("%Y-%m-%d") for d in pd.to_datetime(closed["time_partition"])}
    assert len(months) > 4 and all(m.endswith("-01") for m in months)
    assert (pd.to_datetime(closed["time_partition"]) == closed["emitted_at"].dt.to_period("M").dt.start_time).all()
    assert expected.loc[expected["emitted_at"].isna(), "time_partition"].isna().all()


def test_a_piece_closed_by_another_groups_event_in_a_later_run(spark):
    """docs/semantics.md's groups sharing time, one event per run: A's [0, 10) is open
    (drained) after the first run; B's [20, 25), in the next, closes it at 20."""
    frame = pd.DataFrame({"seq": [1, 2, 3], "g": ["A", "B", "A"], "t0": [0, 20, 26], "t1": [10, 25, 30],
                          "v": [1.0, 2.0, 3.0]})
    built = build_in_batches(spark, frame, [1, 2, 3], **OPTIONS)
    expected = full_build(spark, frame, **OPTIONS)
    same_ordered_rows(built[list(expected.columns)], expected.sort_values("emit_seq", ignore_index=True))
    assert rows(built.sort_values("emit_seq"), ["g", "window_start", "emit_kind", "emitted_at", "time_partition"]) == [
        ("A", 0, "close", 20, 20), ("B", 20, "close", 26, 25), ("A", 26, "drain", None, None)]


@pytest.mark.parametrize("interval_plan", [PLANS[0], PLANS[2]], indirect=True)
def test_a_late_row_fails_the_run_with_out_of_order(spark, interval_plan):
    frame = long_stream(n=600)
    table = full_build(spark, frame.iloc[:500], **OPTIONS)
    previous = spark.createDataFrame(table)
    late = pd.concat([frame.iloc[:500], frame.iloc[[30]].assign(seq=10**6)], ignore_index=True)
    with pytest.raises(OutOfOrderError) as raised:
        interval_aggregate_incremental_spark(spark.createDataFrame(late, SCHEMA), previous, **OPTIONS)
    assert raised.value.seq == 10**6
    assert raised.value.group == {"g": frame["g"].iloc[30]}


@pytest.mark.parametrize("column", ["t0", "t1"])
def test_a_null_start_or_end_in_a_new_batch_fails_the_run(spark, column):
    """The run feeds each group's rows that end after its cut (t1 > cut): a NULL would
    fall out of that filter unseen, so the run fails on it as a full build does."""
    frame = long_stream(n=600)
    previous = spark.createDataFrame(full_build(spark, frame.iloc[:500], **OPTIONS))
    with pytest.raises(NullFieldError) as raised:
        interval_aggregate_incremental_spark(spark.createDataFrame(with_a_new_null(frame.iloc[:550], column, 520),
                                                                   SCHEMA), previous, **OPTIONS)
    assert (raised.value.field, raised.value.seq, raised.value.group) == (column, 10**6, {"g": frame["g"].iloc[520]})


@pytest.mark.parametrize(("options", "message"), [
    pytest.param(dict(partition="day"), "`partition` must be a number > 0", id="day over numeric starts"),
    pytest.param(dict(partition=0), "`partition` must be a number > 0", id="partition zero"),
    pytest.param(dict(arrival=None), "`arrival` must be a column giving arrival order", id="no arrival order"),
])
def test_invalid_parameters(spark, options, message):
    frame = spark.createDataFrame(long_stream(n=20), SCHEMA)
    with pytest.raises(InvalidParameterError, match=message):
        interval_aggregate_incremental_spark(frame, None, **{**OPTIONS, **options})


def test_a_table_without_partitions_is_refused(spark):
    frame = spark.createDataFrame(long_stream(n=50), SCHEMA)
    table = interval_aggregate_incremental_spark(frame, None, **OPTIONS).drop("time_partition")
    with pytest.raises(InvalidParameterError, match="rebuild it once with --full-refresh"):
        interval_aggregate_incremental_spark(frame, table, **OPTIONS)
