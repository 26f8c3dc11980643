"""The Python models' input-file record (streamwindows.spark.input_files), for the three
incremental functions over an input that is a Parquet table, written file by file as a
lakehouse table grows: a scheduled run whose history is as the last build saw it adds
the new rows' counts and checksums to the committed fingerprints instead of recounting
the history, a run with nothing new returns no row and stages nothing, and any sign that
the history changed (a rewritten table, a new file holding an old arrival position)
sends the run back to comparing the fingerprints, which names the change.

Each table is compared with a full build over the same rows, and each staged set with
the fingerprints a full build stages."""

from __future__ import annotations

import pandas as pd
import pytest

from streamwindows import ChangedInputError, InvalidParameterError, NullFieldError, OutOfOrderError
from tests.engine_spark.tables import same_rows
from tests.engine_spark.test_late_rows_spark import KINDS, arrival, commit

DATABASE = "sw_test_input_files"


@pytest.fixture
def database(spark):
    spark.sql(f"create database if not exists {DATABASE}")
    yield DATABASE
    spark.sql(f"drop database if exists {DATABASE} cascade")


def committed(spark, this: str) -> dict:
    """The committed set: {partition: (rows, checksum)} and each partition's first arrival
    ({("from", partition): arrival}), the header's S, and each kept group's first arrival
    ({("first", group as JSON): arrival})."""
    found = {}
    for r in spark.table(f"{this}__input_fingerprints").where("committed").collect():
        if r["input_partition"] is not None:
            found[r["input_partition"]] = (r["input_rows"], r["input_checksum"])
            found[("from", r["input_partition"])] = r["first_arrival"]
        elif r["group_key"] is not None:
            found[("first", r["group_key"])] = r["group_first"]
        else:
            found["S"] = r["recorded_arrival"]
    return found


def staged(spark, this: str) -> bool:
    return "committed=false" in [r[0] for r in spark.sql(f"show partitions {this}__input_fingerprints").collect()]


class Input:
    """A Parquet table the kind's input is read from; each ``add`` writes new files."""

    def __init__(self, spark, kind, table: str, computed: bool):
        self.spark, self.kind, self.table, self.computed = spark, kind, table, computed

    def write(self, frame: pd.DataFrame, mode: str) -> None:
        schema = self.kind.schema
        if schema is None and mode == "append":  # the table's own types (a NULL makes an integer column float)
            schema = self.spark.table(self.table).schema
        df = self.spark.createDataFrame(frame, schema) if schema else self.spark.createDataFrame(frame)
        df.write.mode(mode).format("parquet").saveAsTable(self.table)

    def df(self):
        table = self.spark.table(self.table)
        # A computing input (a filter: the plan is not the table as it stands) is
        # checked by counting its rows up to S instead of the newer files'.
        return table.where(f"{arrival(self.kind)} is not null") if self.computed else table


def run(spark, kind, source: Input, table: pd.DataFrame | None, schema, this: str):
    """(the table after the run, its schema, the run's rows)."""
    previous = None if table is None else spark.createDataFrame(table, schema)
    batch = kind.function(source.df(), previous, **kind.options, this=this)
    written = batch.toPandas()
    return kind.write(table, written), batch.schema, written


def partition_of(kind, frame: pd.DataFrame, row: int):
    bucket = 100 * kind.options["size"] if "size" in kind.options else kind.options["partition"]
    return (frame[kind.time].iloc[row] // bucket) * bucket


# `make test` runs the field dimension over a table (the example project's Python models
# read their staging tables so) and interval semantics over a computed input (the
# benchmark's model adds a column); the other four are `proof` cases of the same test.
CASES = [pytest.param(name, computed, id=f"{name}-{'computed' if computed else 'table'}",
                      marks=[] if (name, computed) in {("field dimension", False), ("interval semantics", True)}
                      else [pytest.mark.proof])
         for name in KINDS for computed in (False, True)]


@pytest.mark.parametrize(("name", "computed"), CASES)
def test_a_run_over_an_unchanged_history_counts_only_the_new_rows(spark, database, name, computed):
    kind = KINDS[name]
    seq = arrival(kind)
    frame = kind.frame.sort_values(seq, ignore_index=True)
    this, reference = f"{database}.model", f"{database}.reference"
    source = Input(spark, kind, f"{database}.input", computed)

    def full_build():  # the reference's committed fingerprints and rows over the input now
        rows = run(spark, kind, source, None, None, reference)[0]
        commit(reference)
        return rows

    source.write(frame.iloc[:400], "overwrite")
    table, schema, _ = run(spark, kind, source, None, None, this)
    commit(this)
    for cut in (430, 460, 490, 520):  # new files, as a growing table gets them
        source.write(frame.iloc[cut - 30:cut], "append")
        table, schema, _ = run(spark, kind, source, table, schema, this)
        commit(this)
        expected = full_build()
        assert committed(spark, this) == committed(spark, reference), cut  # the counts added up
    same_rows(table, expected, kind.key)

    # Nothing new: no row, nothing staged; the committed set still describes the table.
    before = committed(spark, this)
    assert len(run(spark, kind, source, table, schema, this)[2]) == 0
    assert not staged(spark, this)
    assert committed(spark, this) == before

    # The table rewritten (an update in place writes new files): the run compares the
    # fingerprints again, and names the edited row's partition.
    edited = frame.iloc[:520].copy()
    edited.loc[30, "v"] = edited.loc[30, "v"] + 1000
    source.write(edited, "overwrite")
    with pytest.raises(ChangedInputError) as raised:
        run(spark, kind, source, table, schema, this)
    assert raised.value.partition == partition_of(kind, frame, 30)
    # A new file holding a processed arrival position (a corrected copy of an old row)
    # does the same.
    source.write(frame.iloc[:520], "overwrite")
    source.write(frame.iloc[[10]].assign(v=frame["v"].iloc[10] + 1000), "append")
    with pytest.raises(ChangedInputError) as raised:
        run(spark, kind, source, table, schema, this)
    assert raised.value.partition == partition_of(kind, frame, 10)

    # Back to the rows the table was built from (new files, so compared once, equal),
    # the next run with the history as recorded does not compare the history's
    # fingerprints: a committed partition's count altered by hand goes unseen and is
    # carried on, with the new rows' counts added.
    source.write(frame.iloc[:520], "overwrite")
    table, schema, _ = run(spark, kind, source, table, schema, this)
    commit(this)
    fingerprints = f"{this}__input_fingerprints"
    altered = min(p for p in committed(spark, this) if p != "S" and not isinstance(p, tuple))  # as Spark gives it
    altered_set = spark.table(fingerprints).where("committed").selectExpr(
        "input_partition", f"input_rows + if(input_partition = {altered}, 1, 0) as input_rows", "input_checksum",
        "recorded_arrival", "input_files", "group_key", "group_first", "first_arrival")
    spark.createDataFrame(altered_set.collect(), altered_set.schema).createOrReplaceTempView("_sw_test_altered")
    spark.sql(f"insert overwrite table {fingerprints} partition (committed = true) select * from _sw_test_altered")
    source.write(frame.iloc[520:560], "append")
    table, schema, _ = run(spark, kind, source, table, schema, this)
    commit(this)
    expected = full_build()
    carried, recounted = committed(spark, this), committed(spark, reference)
    assert carried[altered][0] == recounted[altered][0] + 1
    assert {p: v for p, v in carried.items() if p != altered} == {p: v for p, v in recounted.items() if p != altered}
    same_rows(table, expected, kind.key)


@pytest.mark.parametrize("name", [pytest.param(name, marks=[] if name == "interval semantics" else [pytest.mark.proof])
                                  for name in KINDS])
def test_a_late_or_null_row_in_a_new_file_fails_the_run_as_it_fails_a_full_build(spark, database, name):
    """Over an unchanged history a run checks only its new rows; a late row or a NULL
    time among them fails it with the engine's error, naming the row as a full build
    over the same input does."""
    kind = KINDS[name]
    seq = arrival(kind)
    frame = kind.frame.sort_values(seq, ignore_index=True)
    this = f"{database}.model"
    source = Input(spark, kind, f"{database}.input", computed=False)
    source.write(frame.iloc[:400], "overwrite")
    table, schema, _ = run(spark, kind, source, None, None, this)
    commit(this)
    source.write(frame.iloc[400:430], "append")
    table, schema, _ = run(spark, kind, source, table, schema, this)
    commit(this)
    late = frame.iloc[[30]]  # an old time, arriving now
    null = frame.iloc[[429]].assign(**{kind.time: None})
    for bad, error in ((late, OutOfOrderError), (null, NullFieldError)):
        source.write(frame.iloc[:430], "overwrite")  # the rows the table holds, in new files:
        table, schema, _ = run(spark, kind, source, table, schema, this)  # compared once, recorded again
        commit(this)
        arrived = pd.concat([frame.iloc[430:440], bad.assign(**{seq: frame[seq].iloc[439] + 1})], ignore_index=True)
        source.write(arrived.astype({kind.time: "Int64"}), "append")
        with pytest.raises(error) as raised:
            run(spark, kind, source, table, schema, this)
        # A full build raises it on the driver, or (a NULL in interval semantics) from
        # the engine in a task, inside Spark's error.
        with pytest.raises(Exception) as full:
            kind.function(source.df(), None, **kind.options).toPandas()
        assert str(raised.value) in str(full.value), (raised.value, full.value)


def test_a_run_with_other_parameters_is_no_run_with_nothing_new(spark, database):
    """The record holds the function's parameters: a field dimension run with another
    window size and no new row still finds the table's windows of the old size."""
    kind = KINDS["field dimension"]
    frame = kind.frame.sort_values(arrival(kind), ignore_index=True)
    this = f"{database}.model"
    source = Input(spark, kind, f"{database}.input", computed=False)
    source.write(frame.iloc[:400], "overwrite")
    table, schema, _ = run(spark, kind, source, None, None, this)
    commit(this)
    previous = spark.createDataFrame(table, schema)
    with pytest.raises(InvalidParameterError, match="rebuild the table with --full-refresh"):
        kind.function(source.df(), previous, **{**kind.options, "size": 60}, this=this)


def test_an_input_is_direct_when_its_rows_are_a_tables_one_for_one(spark, database):
    """The record counts a direct input's processed rows in its newer files, any other
    input's over all its rows: a table as it stands and a projection that passes the
    arrival column through are direct; a filter, a renamed arrival column and a join
    are not; rows that are not files have no record."""
    from pyspark.sql import functions as F

    from streamwindows.spark.input_files import input_tables

    spark.range(5).selectExpr("id as seq", "id * 2 as t").write.format("parquet").saveAsTable(f"{database}.events")
    events = spark.table(f"{database}.events")
    cases = {
        "table": (events, True),
        "projection": (events.withColumn("t_end", F.col("t") + 1), True),
        "filter": (events.where("t > 2"), False),
        "renamed arrival": (events.select(F.col("t").alias("seq"), F.col("seq").alias("t")), False),
        "join": (events.join(events.select("seq"), "seq", "left_semi"), False),
    }
    for case, (df, direct) in cases.items():
        tables = input_tables(df, "seq")
        assert tables is not None and tables.tables == (f"spark_catalog.{database}.events",), case
        assert tables.direct is direct, case
    assert input_tables(spark.createDataFrame([(1, 2)], "seq long, t long"), "seq") is None


def test_the_arrival_floor_passes_every_row_from_a_time_on_and_no_partition_before(spark, database):
    """A read from a time X on adds ``arrival >= A``, A the least first arrival of X's
    partition and the later ones (committed with the fingerprints): every row at or
    after X passes it, the partitions before X's (whose rows arrived earlier) do not, and
    without an unchanged history there is no floor. Arrival positions run backwards
    inside each partition, so a floor taken from the wrong partition, or the wrong row
    of it, drops rows at or after X."""
    from pyspark.sql import functions as F

    from streamwindows.spark.fingerprints import InputFingerprints
    from streamwindows.spark.incremental import time_partitioner

    table, this = f"{database}.input", f"{database}.model"
    rows = [(1000 + (t // 10) * 10 + 9 - t % 10, t) for t in range(100)]  # partitions of 10 times
    spark.createDataFrame(rows, "seq long, t long").write.format("parquet").saveAsTable(table)

    def fingerprints():
        return InputFingerprints.of(this, time="t", arrival="seq",
                                    partition_of=time_partitioner("test", False, 10, None))

    fingerprints().check_and_stage(spark.table(table), full=True, function="test", model=None)
    commit(this)
    for since in (37, 30, 39, 0, 99):
        df = spark.table(table)
        floor = fingerprints().arrival_floor(df, F.lit(since))
        passing = {r["t"] for r in df.where(floor).collect()}
        assert passing == set(range(since - since % 10, 100)), since  # X's partition on, whole
    # Past every counted partition: only rows after S (new ones) can lie there.
    df = spark.table(table)
    assert df.where(fingerprints().arrival_floor(df, F.lit(500))).collect() == [(max(r[0] for r in rows), 9 * 10)]
    # A rewritten table: the history is not known as counted, so no floor.
    spark.createDataFrame(rows, "seq long, t long").write.mode("overwrite").format("parquet").saveAsTable(table)
    df = spark.table(table)
    assert df.where(fingerprints().arrival_floor(df, F.lit(37))).count() == 100
