"""The `late_rows` policies of the Python models' builds (streamwindows.spark.late_rows),
for the three incremental functions: a row whose time is before that of a row that
arrived earlier in its stream (any group for the field dimension and interval
semantics, its own group for count windows) fails the build under 'error' and
'reprocess' (a full rebuild fails on it too), and under 'audit' goes to
<model>__late_rows and stays out of every window, in later runs and full builds alike.

The late rows are found here by a reference written from that definition (a loop in
arrival order, keeping each stream's latest time), and the tables are compared with a
full build over the input without them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest

from streamwindows import ChangedInputError, InvalidParameterError, OutOfOrderError
from streamwindows.spark import (
    count_window_incremental_spark,
    field_dimension_incremental_spark,
    interval_aggregate_incremental_spark,
)
from tests.engine_spark.streams import SCHEMA, long_stream, random_stream
from tests.engine_spark.tables import overwrite, same_rows

DATABASE = "sw_test_late_rows"
AUDIT_COLUMNS = ["late_reason", "late_watermark", "audited_at"]


def append(table: pd.DataFrame | None, written: pd.DataFrame) -> pd.DataFrame:
    return written if table is None else pd.concat([table, written], ignore_index=True)


@dataclass
class Kind:
    """One incremental function with its input, how dbt writes its rows, the columns
    that name an output row, and its ordered streams' group columns."""

    function: Any
    frame: pd.DataFrame
    schema: str | None
    options: dict
    time: str
    streams: list[str]
    write: Any
    key: list[str]


KINDS = {
    "field dimension": Kind(field_dimension_incremental_spark, random_stream(n=900), None,
                            dict(field="t", group_by=["g"], seq="seq", size=30, advance=10,
                                 aggregates={"total": "sum(v)", "n": "count(*)"}),
                            "t", [], append, ["g", "window_start"]),
    "interval semantics": Kind(interval_aggregate_incremental_spark, long_stream(n=900), SCHEMA,
                               dict(start="t0", end="t1", group_by="g", arrival="seq", partition=5,
                                    aggregates={"n": "count(*)", "s": "sum(v)"}),
                               "t0", [], overwrite, ["g", "window_start", "emit_kind"]),
    "count window": Kind(count_window_incremental_spark, long_stream(n=900), SCHEMA,
                         dict(time="t0", end="t1", group_by="g", arrival="seq", partition=5, n=3,
                              aggregates={"k": "count(*)", "s": "sum(v)"}),
                         "t0", ["g"], overwrite, ["g", "point_at"]),
}


def arrival(kind: Kind) -> str:
    return kind.options.get("seq") or kind.options["arrival"]


def reference_late(frame: pd.DataFrame, kind: Kind) -> dict[int, Any]:
    """arrival position -> the latest time that arrived before it, for each row whose
    time is before that (per stream)."""
    latest: dict[Any, Any] = {}
    late = {}
    for _, row in frame.sort_values(arrival(kind)).iterrows():
        stream = tuple(None if pd.isna(row[g]) else row[g] for g in kind.streams)
        before = latest.get(stream)
        if before is not None and row[kind.time] < before:
            late[int(row[arrival(kind)])] = before
        else:
            latest[stream] = row[kind.time] if before is None else max(before, row[kind.time])
    return late


def with_late_rows(kind: Kind) -> pd.DataFrame:
    """The first 500 rows, then new ones among which arrive copies of an old row (far
    below every cut) and of a recent one (near the latest time), each between two new
    rows."""
    frame, seq = kind.frame, arrival(kind)
    step = int(frame[seq].iloc[1] - frame[seq].iloc[0])
    copies = pd.concat([frame.iloc[[30]].assign(**{seq: frame[seq].iloc[520] + 1}),
                        frame.iloc[[495]].assign(**{seq: frame[seq].iloc[540] + 1})])
    assert step > 1  # the copies' positions fall between two rows'
    return pd.concat([frame, copies]).sort_values(seq, ignore_index=True)


def run(spark, kind: Kind, frame: pd.DataFrame, table: pd.DataFrame | None, schema, **policy):
    previous = None if table is None else spark.createDataFrame(table, schema)
    df = spark.createDataFrame(frame, kind.schema) if kind.schema else spark.createDataFrame(frame)
    batch = kind.function(df, previous, **kind.options, **policy)
    return kind.write(table, batch.toPandas()), batch.schema


# The field dimension and interval semantics run on real readings through dbt in `make
# test` (tests/incremental/test_batch_by_batch_equals_full_rebuild.py:
# test_python_models_audit_late_rows_as_the_sql_models_do and
# test_a_row_changed_below_what_a_python_model_processed_fails_it_or_is_reprocessed):
# here they are `proof` cases, the count window (no Python model in the replays) is not.
PROOF_KINDS = [pytest.param(name, marks=[pytest.mark.proof] if name != "count window" else []) for name in KINDS]


@pytest.fixture
def database(spark):
    spark.sql(f"create database if not exists {DATABASE}")
    yield DATABASE
    spark.sql(f"drop database if exists {DATABASE} cascade")


@pytest.mark.parametrize("name", PROOF_KINDS)
def test_audit_keeps_late_rows_out_of_every_build(spark, database, name):
    kind = KINDS[name]
    this = f"{database}.{name.replace(' ', '_')}"
    audit = f"{this}__late_rows"
    policy = dict(late_rows="audit", this=this)
    stream = with_late_rows(kind)
    late = reference_late(stream, kind)
    assert int(kind.frame[arrival(kind)].iloc[520] + 1) in late  # the old row's copy is late
    without_late = stream[~stream[arrival(kind)].isin(late)]
    seq = arrival(kind)

    def expected(upto: int) -> pd.DataFrame:
        table, _ = run(spark, kind, without_late[without_late[seq] <= upto], None, None)
        return table

    table, schema = run(spark, kind, stream[stream[seq] <= stream[seq].iloc[500]], None, None, **policy)
    assert not spark.catalog.tableExists(audit)  # no late row yet
    for upto in (kind.frame[seq].iloc[560], kind.frame[seq].iloc[700]):
        table, schema = run(spark, kind, stream[stream[seq] <= upto], table, schema, **policy)
        same_rows(table, expected(upto), kind.key)
    audited = spark.table(audit).toPandas()
    # The input's columns, then the SQL models' audit columns; each late row once.
    assert list(audited.columns) == list(stream.columns) + AUDIT_COLUMNS
    assert dict(zip(audited[seq], audited["late_watermark"], strict=True)) == {s: str(t) for s, t in late.items()}
    assert set(audited["late_reason"]) == {f"{kind.time} before the latest processed time"}

    # A full build under 'audit' audits the same rows afresh and leaves them out too.
    rebuilt, _ = run(spark, kind, stream[stream[seq] <= kind.frame[seq].iloc[700]], None, None, **policy)
    same_rows(rebuilt, expected(kind.frame[seq].iloc[700]), kind.key)
    assert sorted(spark.table(audit).toPandas()[seq]) == sorted(late)

    # Under 'error' a scheduled run keeps the audited rows out; a full build takes them in
    # again (the audit table goes) and fails on them, as 'reprocess' does.
    table, schema = run(spark, kind, stream, table, schema, late_rows="error", this=this)
    same_rows(table, expected(stream[seq].max()), kind.key)
    # (A count window's full build meets the row in its group's task on an executor: the
    # error comes wrapped in Spark's PythonException, with the engine's message.)
    for failing in ("reprocess", "error"):
        with pytest.raises(Exception, match=r"OutOfOrder") as raised:
            run(spark, kind, stream, None, None, late_rows=failing, this=this)
        assert not spark.catalog.tableExists(audit)
        named = re.search(r"OutOfOrder: field `\w+` went backwards at arrival position (\d+)",
                          str(raised.value))
        assert named and int(named[1]) in late, str(raised.value)


def test_error_fails_a_scheduled_run_on_the_first_late_row(spark):
    kind = KINDS["interval semantics"]
    stream, seq = with_late_rows(kind), arrival(kind)
    table, schema = run(spark, kind, stream[stream[seq] <= stream[seq].iloc[500]], None, None)
    with pytest.raises(OutOfOrderError) as raised:
        run(spark, kind, stream, table, schema, late_rows="error")
    assert raised.value.seq == min(reference_late(stream, kind))


@pytest.mark.parametrize(("policy", "message"), [
    (dict(late_rows="later"), r"`late_rows` must be one of 'error', 'audit', 'reprocess'; got 'later'"),
    (dict(late_rows="audit"), r"`this` must be the model's table name \(str\(dbt.this\)\) with late_rows='audit'"),
    (dict(late_rows="error", this=" "), r"`this` must be the model's table name"),
])
@pytest.mark.parametrize("name", list(KINDS))
def test_policy_arguments_are_checked_before_any_spark_job(spark, name, policy, message):
    kind = KINDS[name]
    df = spark.createDataFrame(kind.frame, kind.schema) if kind.schema else spark.createDataFrame(kind.frame)
    with pytest.raises(InvalidParameterError, match=message):
        kind.function(df, None, **kind.options, **policy)


def commit(this: str) -> None:
    """What the adapter's materialization does after dbt's write: the run's staged
    fingerprints become the committed ones."""
    from types import SimpleNamespace

    from dbt.adapters.spark_session.staged_fingerprints import settle_staged
    from pyspark.sql import SparkSession

    schema, identifier = this.split(".")
    settle_staged(SparkSession.getActiveSession(), SimpleNamespace(schema=schema, identifier=identifier), "commit")


def staged_whole_table(this: str) -> bool:
    """What the adapter's materialization asks after the model ran: are its rows the
    whole table (swapped in) rather than new rows?"""
    from types import SimpleNamespace

    from dbt.adapters.spark_session.staged_fingerprints import staged_as_whole_table
    from pyspark.sql import SparkSession

    schema, identifier = this.split(".")
    return staged_as_whole_table(SparkSession.getActiveSession(), SimpleNamespace(schema=schema, identifier=identifier))


@pytest.mark.parametrize("name", PROOF_KINDS)
def test_a_row_changed_in_place_fails_the_next_run_or_is_reprocessed(spark, database, name):
    """Rows the table was built from, corrected or deleted in place, fail the next
    scheduled run under 'error' and 'audit', naming the earliest changed partition of
    the input's time (the field dimension without drain: buckets of 100 windows' size);
    under 'reprocess' the run returns a full build's rows, staged as the whole table.
    The committed fingerprints describe the table until a build's write has succeeded."""
    kind = KINDS[name]
    this = f"{database}.{name.replace(' ', '_')}"
    seq = arrival(kind)
    frame = kind.frame.sort_values(seq, ignore_index=True)
    bucket = 100 * kind.options["size"] if "size" in kind.options else kind.options["partition"]

    def partition(row: int):
        return (frame[kind.time].iloc[row] // bucket) * bucket

    table, schema = run(spark, kind, frame.iloc[:500], None, None, this=this)
    commit(this)
    table, schema = run(spark, kind, frame.iloc[:560], table, schema, this=this)
    assert not staged_whole_table(this)  # new rows, written as the model's strategy says
    commit(this)
    edited = frame.iloc[:600].copy()
    edited.loc[30, "v"] = edited.loc[30, "v"] + 1000
    deleted = frame.iloc[:600].drop(index=[40])
    for changed, row, rows_now in ((edited, 30, None), (deleted, 40, -1)):
        for policy in ("error", "audit"):
            with pytest.raises(ChangedInputError) as raised:
                run(spark, kind, changed, table, schema, late_rows=policy, this=this)
            assert raised.value.partition == partition(row), (policy, str(raised.value))
            assert raised.value.rows_now - raised.value.rows_then == (rows_now or 0), str(raised.value)
            assert "changed after this model processed them" in str(raised.value)
        # 'reprocess': the rows of a full build over the changed input (the reference:
        # a build without a table), which replace the table.
        previous = spark.createDataFrame(table, schema)
        df = spark.createDataFrame(changed, kind.schema) if kind.schema else spark.createDataFrame(changed)
        whole = kind.function(df, previous, **kind.options, late_rows="reprocess", this=this).toPandas()
        assert staged_whole_table(this), name
        expected, _ = run(spark, kind, changed, None, None)
        same_rows(whole, expected, kind.key)
    # A full build over the edited input stages its fingerprints; its write fails (not
    # committed): the table is the old one, and the next run still sees the edit.
    run(spark, kind, edited, None, None, this=this)
    with pytest.raises(ChangedInputError):
        run(spark, kind, edited, table, schema, this=this)
    # Committed after the full build's write: the edited rows are what the table holds.
    table, schema = run(spark, kind, edited, None, None, this=this)
    commit(this)
    table, schema = run(spark, kind, pd.concat([edited, frame.iloc[600:700]]), table, schema, this=this)
    expected, _ = run(spark, kind, pd.concat([edited, frame.iloc[600:700]]), None, None)
    same_rows(table, expected, kind.key)


@pytest.mark.parametrize("name", list(KINDS))
def test_fingerprints_recorded_over_no_rows_compare_nothing(spark, database, name):
    """A first build over an empty input records a header without rows: the rows that
    arrive after it are all new, none was processed, so the next run compares none."""
    kind = KINDS[name]
    this = f"{database}.{name.replace(' ', '_')}"
    frame = kind.frame.sort_values(arrival(kind), ignore_index=True)
    columns = kind.schema or spark.createDataFrame(frame.iloc[:5]).schema  # nothing to infer from
    batch = kind.function(spark.createDataFrame(frame.iloc[:0], columns), None, **kind.options, this=this)
    table, schema = kind.write(None, batch.toPandas()), batch.schema
    commit(this)
    assert spark.table(f"{this}__input_fingerprints").where("committed").count() == 1  # the header
    table, schema = run(spark, kind, frame.iloc[:300], table, schema, this=this)
    commit(this)
    expected, _ = run(spark, kind, frame.iloc[:300], None, None)
    same_rows(table, expected, kind.key)
