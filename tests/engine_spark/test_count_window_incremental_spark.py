"""Count windows with user aggregates in scheduled runs (count_window_incremental_spark):
batch after batch, with each run's rows written by dynamic partition overwrite (as dbt's
insert_overwrite does), the table ends equal to one full build, whatever the cuts
(groups that reach N start times late, tied start times, gaps); a late event fails the
run with the OutOfOrder error of a full build."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows import InvalidParameterError, NullFieldError, OutOfOrderError, time_weighted_average
from streamwindows.spark import count_window_incremental_spark
from tests.conftest import exact_shuffle_partitions, spark_examples
from tests.engine_spark import tables
from tests.engine_spark.streams import SCHEMA, events, long_stream, with_a_new_null
from tests.engine_spark.tables import same_ordered_rows

OPTIONS = dict(time="t0", end="t1", group_by="g", arrival="seq", partition=5,
               aggregates={"k": "count(*)", "s": "sum(v)", "hi": "max(v)"},
               user_aggregates={"twa": time_weighted_average("v")})


def provisional_rows_have_no_partition(written: pd.DataFrame) -> None:
    assert written["time_partition"].isna().eq(~written["is_final"]).all()


def build_in_batches(spark, frame: pd.DataFrame, cuts, **options) -> pd.DataFrame:
    return tables.build_in_batches(spark, count_window_incremental_spark, frame, cuts,
                                   check_written=provisional_rows_have_no_partition, **options)


def full_build(spark, frame: pd.DataFrame, **options) -> pd.DataFrame:
    return count_window_incremental_spark(spark.createDataFrame(frame, SCHEMA), None, **options).toPandas()


def in_order(built: pd.DataFrame, expected: pd.DataFrame) -> None:
    """The same rows, emit_seq included: each run numbers its windows as a full build
    does, provisional windows that keep their place included."""
    same_ordered_rows(built, expected.sort_values("emit_seq", ignore_index=True))


@settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=events(), n=st.integers(1, 3), data=st.data())
def test_batches_equal_a_full_build(spark, frame, n, data):
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(frame)), max_size=3)))) + [len(frame)]
    options = {**OPTIONS, "n": n}
    in_order(build_in_batches(spark, frame, cuts, **options), full_build(spark, frame, **options))


@pytest.mark.proof
def test_many_groups_across_a_gap_equal_a_full_build(spark):
    """A `proof` test: 2,000 events in 30 groups over eight cuts. Guarded in `make test`
    by test_batches_equal_a_full_build (random streams, random cuts)."""
    frame = long_stream()
    cuts = [40, 150, 151, 700, 1199, 1201, 1600, 2000]  # groups still short of N at 40; a cut past the gap
    options = {**OPTIONS, "n": 4}
    with exact_shuffle_partitions(spark, 8):  # the groups and the numbering's ranges over 8 partitions
        built = build_in_batches(spark, frame, cuts, **options)
        expected = full_build(spark, frame, **options)
    assert len(built) == len(expected) > 1500
    assert (~expected["is_final"]).sum() == frame["g"].nunique(dropna=False)  # one provisional window a group
    in_order(built, expected)


def test_a_late_event_fails_the_run_with_out_of_order(spark):
    frame = long_stream(n=600)
    options = {**OPTIONS, "n": 3}
    previous = spark.createDataFrame(full_build(spark, frame.iloc[:500], **options))
    late = pd.concat([frame.iloc[:500], frame.iloc[[30]].assign(seq=10**6)], ignore_index=True)
    with pytest.raises(OutOfOrderError) as raised:
        count_window_incremental_spark(spark.createDataFrame(late, SCHEMA), previous, **options)
    assert raised.value.seq == 10**6
    assert raised.value.group == {"g": frame["g"].iloc[30]}


@pytest.mark.parametrize("column", ["t0", "t1"])
def test_a_null_time_in_a_new_batch_fails_the_run(spark, column):
    """The run feeds each group's events from its cut on (t0 >= cut): a NULL would fall
    out of that filter unseen, so the run fails on it as a full build does."""
    frame = long_stream(n=600)
    options = {**OPTIONS, "n": 3}
    previous = spark.createDataFrame(full_build(spark, frame.iloc[:500], **options))
    batch = with_a_new_null(frame.iloc[:550], column, 520)
    with pytest.raises(NullFieldError) as raised:
        count_window_incremental_spark(spark.createDataFrame(batch, SCHEMA), previous, **options)
    assert (raised.value.field, raised.value.seq, raised.value.group) == (column, 10**6, {"g": frame["g"].iloc[520]})
    # A full build names it too (Arrow hands the engine a NULL bigint as a float: the
    # engine would refuse the column's type instead).
    with pytest.raises(Exception, match=rf"NULL field: `{column}` is NULL at arrival position 1000000"):
        full_build(spark, batch, **options)


@pytest.mark.parametrize(("options", "message"), [
    pytest.param(dict(partition="day"), "`partition` must be a number > 0", id="day over numeric times"),
    pytest.param(dict(partition=-1), "`partition` must be a number > 0", id="negative partition"),
    pytest.param(dict(arrival=None), "`arrival` must be a column giving arrival order", id="no arrival order"),
])
def test_invalid_parameters(spark, options, message):
    frame = spark.createDataFrame(long_stream(n=20), SCHEMA)
    with pytest.raises(InvalidParameterError, match=message):
        count_window_incremental_spark(frame, None, **{**OPTIONS, "n": 2, **options})


def test_a_table_without_partitions_is_refused(spark):
    frame = spark.createDataFrame(long_stream(n=50), SCHEMA)
    table = count_window_incremental_spark(frame, None, **OPTIONS, n=2).drop("time_partition")
    with pytest.raises(InvalidParameterError, match="rebuild it once with --full-refresh"):
        count_window_incremental_spark(frame, table, **OPTIONS, n=2)


def test_a_table_without_emit_seq_is_refused(spark):
    """A table built before count windows were numbered cannot tell a scheduled run where
    its numbers go on: the run asks for one full rebuild, naming the table's columns."""
    frame = long_stream(n=300)
    table = count_window_incremental_spark(spark.createDataFrame(frame.iloc[:200], SCHEMA), None, **OPTIONS, n=2)
    with pytest.raises(InvalidParameterError, match=r"`previous` must be a table with emit_seq .*rebuild it once "
                                                    r"with --full-refresh; got 'a table with columns g, point_at"):
        count_window_incremental_spark(spark.createDataFrame(frame, SCHEMA), table.drop("emit_seq"), **OPTIONS, n=2)
