"""Rows changed in place below what a Python model's table holds.

A row corrected or deleted in place among the rows a table was built from (the same
arrival position, another value; or a row gone) is no new row: no late-row check sees
it, and a scheduled run, which recomputes only from the table's latest time, would keep
the windows made of the old value. So every build records, per input partition (the
partition of each row's time), how many rows it read and a checksum (the sum of each
row's ``xxhash64``), with the latest arrival position it read. The next scheduled run
counts the same rows again (arrival position up to the recorded one; the audited late
rows are out of both counts) and finds the earliest partition that differs:

* under ``late_rows='error'`` or ``'audit'`` the run fails, naming it
  (ChangedInputError); ``--full-refresh`` rebuilds from the corrected input;
* under ``'reprocess'`` the run recomputes from it. The windows from that partition on
  depend on the windows' state just before it, which the table (a Python model's only
  state) does not hold, so the run recomputes the whole table from the input, as a
  full build does, and the adapter swaps those rows in as the new table (built aside:
  a failure keeps the old one) instead of overwriting partitions.

The record is ``<this>__input_fingerprints``, partitioned by ``committed``. A run stages
its fingerprints (``committed = false``) while the model runs, before dbt writes the
model's rows; the adapter's materialization moves them to ``committed = true`` only
after that write has succeeded, and discards staged rows before a model runs. So a run
that fails before or during its write leaves the table and the committed fingerprints
that describe it as they were. Each staged set carries a header row (NULL partition and
checksum) holding the arrival position, so that even an empty input stages something,
and the table property ``stream_windows.staged_rows`` says what the model's rows are:
``'new'`` (written by partition or appended, as the model's strategy says) or
``'whole_table'`` (they replace the table).

Recounting and comparing the whole history on every run would make a run's cost grow
with the history. So the header row also holds the input-file record
(:mod:`streamwindows.spark.input_files`): while it shows the history as the committed
set saw it, a run counts and hashes only the rows after S and adds them to the committed
sums (:meth:`InputFingerprints._stage_added`), and a run with no newer file has nothing
new (:meth:`InputFingerprints.nothing_new`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamwindows.errors import ChangedInputError
from streamwindows.spark.input_files import InputTables, Verdict, decoded, input_tables, verdict
from streamwindows.spark.input_files import record as input_files_record

SUFFIX = "__input_fingerprints"
STAGED_ROWS = "stream_windows.staged_rows"  # the table property the adapter reads (its STAGED_ROWS)
# A bigint hash as three pieces (shift, mask): its top 20 bits (signed), then two
# 22-bit pieces. A piece's sum over a partition cannot overflow below 2^41 rows.
HASH_PIECES = ((44, None), (22, (1 << 22) - 1), (0, (1 << 22) - 1))


def hash_sum(hashes):
    """The sum of a bigint Column over a group as decimal(38, 0): the same integer as
    ``sum(cast(hash as decimal(38, 0)))``, so records written either way compare equal,
    from three bigint sums of its pieces, combined once per group. Spark's decimal sum
    per row was half of the comparison's time (10,000,000 rows: 2.57 s against 1.28 s
    for bigint sums). NULL over no non-NULL value, as SUM. As the macro _sw_hash_sum."""
    from pyspark.sql import functions as F

    total = None
    for shift, mask in HASH_PIECES:
        piece = F.shiftright(hashes, shift) if shift else hashes
        piece = piece if mask is None else piece.bitwiseAND(F.lit(mask))
        term = F.sum(piece).cast("decimal(38,0)") * F.lit(1 << shift)
        total = term if total is None else total + term
    return total.cast("decimal(38,0)")


@dataclass(frozen=True)
class History:
    """What a run knows of its input's history before any pass over the rows: the
    committed fingerprints ({partition: (rows, checksum)}, None without a committed
    set), their arrival position S, the committed input-file record (decoded), the
    tables the input reads (None: not a table of files) and what their files say."""

    committed: dict | None
    processed_until: Any
    recorded: dict | None
    tables: InputTables | None
    verdict: Verdict | None
    group_firsts: dict | None = None  # committed: group key (JSON) -> first arrival; None: not kept
    partition_firsts: dict | None = None  # committed: partition -> its rows' first arrival (None: not kept)

    @property
    def unchanged(self) -> bool:
        """The rows up to S are those the committed fingerprints describe: the run
        neither recounts nor compares them."""
        return self.committed is not None and self.verdict is not None and self.verdict.unchanged

    def carried(self, name: str) -> Any:
        """A value the last build carried to this run in its record (None without)."""
        return ((self.recorded or {}).get("carried") or {}).get(name) if self.unchanged else None


@dataclass
class InputFingerprints:
    """``table`` is ``<this>__input_fingerprints`` (None without ``this``: nothing is
    recorded or checked); ``time`` and ``arrival`` name the input's columns,
    ``partition_of`` maps a time Column to its partition's first value, ``call``
    describes the function's parameters (:func:`describe_call`). With ``first_arrivals``
    (the group columns) the set also keeps each group's first arrival, one row per group
    (``group_key``: the group as JSON, ``group_first``), so that a run over an unchanged
    history learns them from its new rows alone (:meth:`group_firsts`)."""

    table: str | None
    time: str
    arrival: str
    partition_of: Callable
    call: str = ""
    first_arrivals: tuple[str, ...] = ()
    _read: tuple | None = field(default=None, repr=False)  # (df, full, History) of this run
    _staged_firsts: dict | None = field(default=None, repr=False)  # this run's, once staged

    @classmethod
    def of(cls, this: str | None, *, time: str, arrival: str, partition_of: Callable, call: str = "",
           first_arrivals: tuple[str, ...] | list[str] = ()) -> InputFingerprints:
        return cls(f"{this.strip()}{SUFFIX}" if this else None, time, arrival, partition_of, call,
                   tuple(first_arrivals))

    def history(self, df, *, full: bool) -> History:
        """The run's History, found once per input (a query over the files' footers and
        the files newer than the record's, before the rows are read)."""
        if self._read is not None and self._read[0] is df and self._read[1] == full:
            return self._read[2]
        spark = df.sparkSession
        committed, processed_until, recorded, firsts, partition_firsts = (None,) * 5 if full else \
            self._committed(spark)
        tables = input_tables(df, self.arrival)
        found = None if tables is None else verdict(df, tables, recorded, self.arrival, processed_until)
        history = History(committed, processed_until, recorded, tables, found, firsts, partition_firsts)
        self._read = (df, full, history)
        return history

    def nothing_new(self, df) -> bool:
        """True when a scheduled run has nothing to do: the committed record shows the
        history as the last build saw it, no table the input reads has a newer file, and
        the function's parameters are the same. The table then already equals a full
        build over this input: the run returns no row and stages nothing (the committed
        fingerprints still describe the table)."""
        if self.table is None:
            return False
        history = self.history(df, full=False)
        return history.unchanged and not history.verdict.grew and history.recorded.get("call") == self.call

    def new_rows(self, df):
        """The rows a run over an unchanged history has not processed: arrived after S,
        or with a NULL arrival position (which no build processes: it fails them). The
        filter reaches the files (Parquet skips those holding none)."""
        from pyspark.sql import functions as F

        s = self.history(df, full=False).processed_until
        arrival = F.col(self.arrival)
        return df.where(arrival.isNull() | (F.lit(True) if s is None else arrival > F.lit(s)))

    def arrival_floor(self, df, since):
        """A filter on the arrival position that every row of ``df`` with a time at or
        after ``since`` (a Column of one value) passes, for a run over an unchanged
        history: the first arrival of the earliest partition from ``since``'s on, from the
        committed fingerprints (every later row arrived after S). Parquet skips the files
        and row groups below it, where a time filter prunes nothing (Spark writes
        timestamps as INT96 by default, whose statistics it does not use). True (no
        filter) when the history is not known so."""
        from pyspark.sql import functions as F

        if self.table is None:
            return F.lit(True)
        history = self.history(df, full=False)
        if not history.unchanged or history.partition_firsts is None or history.processed_until is None:
            return F.lit(True)
        first = df.sparkSession.range(1).select(self.partition_of(since).alias("p")).first()["p"]
        if first is None:
            return F.lit(True)
        firsts = [a for p, a in history.partition_firsts.items() if p >= first]
        if None in firsts:  # a partition counted before first arrivals were kept
            return F.lit(True)
        return F.col(self.arrival) >= F.lit(min(firsts, default=history.processed_until))

    def group_firsts(self, df, column: str):
        """Each group's first arrival over the whole input (the group columns and
        ``column``), as this run staged them: None before staging, or without
        ``first_arrivals``."""
        if self._staged_firsts is None or not self.first_arrivals:
            return None
        from pyspark.sql import functions as F
        from pyspark.sql.types import StringType, StructField, StructType

        groups = StructType([df.schema[g] for g in self.first_arrivals])
        frame = df.sparkSession.createDataFrame(
            list(self._staged_firsts.items()),
            StructType([StructField("_sw_key", StringType()), StructField(column, df.schema[self.arrival].dataType)]))
        return frame.select(F.from_json("_sw_key", groups).alias("_sw_group"), column).select(
            *[F.col("_sw_group")[g].alias(g) for g in self.first_arrivals], column)

    def check_and_stage(self, df, *, full: bool, function: str, model: str | None,
                        reprocess: bool = False, carried: dict | None = None) -> bool:
        """A scheduled run (``full`` false) first compares the rows of the committed
        fingerprints with ``df`` (the input without audited rows): at the earliest
        partition that differs it raises ChangedInputError, or, with ``reprocess``,
        returns True: the caller then returns a full build's rows, staged as replacing
        the whole table. Every build stages ``df``'s fingerprints. One Spark job reads
        ``df``'s time, arrival and row hash for both. When the input-file record shows
        the history unchanged, that job reads only the rows after S (Parquet skips the
        files that hold none), and their counts and checksums are added to the
        committed ones. ``carried``: values the next run reads back
        (:meth:`History.carried`), kept in the record. False: the model's rows are new
        rows, as its strategy writes them."""
        if self.table is None:
            return False
        from pyspark.sql import functions as F

        spark = df.sparkSession
        history = self.history(df, full=full)
        hashed = df.select(self.partition_of(F.col(self.time)).alias("input_partition"),
                           F.col(self.arrival).alias("_sw_arrival"),
                           F.xxhash64(F.struct(*[df[c] for c in df.columns])).alias("_sw_hash"))
        partition_type = hashed.schema["input_partition"].dataType
        if not full and history.unchanged:
            return self._stage_added(spark, df, hashed, history, partition_type, df.schema[self.arrival].dataType,
                                     carried)
        committed = None if full else history.committed
        if committed is None:  # nothing to compare: every row is counted for the record
            within = F.lit(True)
        elif history.processed_until is None:  # recorded over no rows: none was processed
            within = F.lit(False)
        else:
            within = F.col("_sw_arrival") <= F.lit(history.processed_until)
        per_partition = hashed.groupBy("input_partition").agg(
            F.count(F.lit(1)).alias("input_rows"), hash_sum(F.col("_sw_hash")).alias("input_checksum"),
            F.max("_sw_arrival").alias("_sw_last"), F.count("_sw_arrival").alias("_sw_arrived"),
            F.min("_sw_arrival").alias("_sw_first"),
            F.count(F.when(within, F.lit(1))).alias("_sw_rows_then"),
            hash_sum(F.when(within, F.col("_sw_hash"))).alias("_sw_checksum_then"))
        now = per_partition.collect()
        whole_table = False
        if committed is not None:
            changed = self._first_change(committed, now)
            if changed is not None and not reprocess:
                raise ChangedInputError(function=function, time=self.time, arrival=self.arrival,
                                        processed_until=history.processed_until, model=model, **changed)
            whole_table = changed is not None
        counts = {r["input_partition"]: (r["input_rows"], r["input_checksum"]) for r in now
                  if r["input_partition"] is not None}
        partition_firsts = {r["input_partition"]: r["_sw_first"] for r in now if r["input_partition"] is not None}
        latest = max((r["_sw_last"] for r in now if r["_sw_last"] is not None), default=None)
        arrived = sum(r["_sw_arrived"] for r in now)
        # Kept only where a record can vouch for them: a run trusts them over an unchanged history.
        firsts = self._firsts_of(df) if self.first_arrivals and history.tables is not None else None
        self._stage(spark, counts, partition_firsts, latest, self._record(history, arrived, carried),
                    partition_type, df.schema[self.arrival].dataType, firsts, whole_table=whole_table)
        return whole_table

    def _firsts_of(self, rows, known: dict | None = None) -> dict:
        """{group key: first arrival} over ``rows``, merged into ``known`` (the smaller
        arrival wins)."""
        from pyspark.sql import functions as F

        key = F.to_json(F.struct(*[F.col(g) for g in self.first_arrivals]))
        firsts = dict(known or {})
        for r in rows.groupBy(key.alias("k")).agg(F.min(self.arrival).alias("first")).collect():
            if r["first"] is not None and (firsts.get(r["k"]) is None or r["first"] < firsts[r["k"]]):
                firsts[r["k"]] = r["first"]
        return firsts

    def _stage_added(self, spark, df, hashed, history: History, partition_type, arrival_type,
                     carried: dict | None) -> bool:
        """The history is as recorded: this run's fingerprints are the committed ones
        plus the counts and checksums of the rows after S (sums add up)."""
        from pyspark.sql import functions as F

        s = history.processed_until
        new = hashed.where(F.col("_sw_arrival").isNotNull() if s is None else F.col("_sw_arrival") > F.lit(s))
        added = new.groupBy("input_partition").agg(
            F.count(F.lit(1)).alias("input_rows"), hash_sum(F.col("_sw_hash")).alias("input_checksum"),
            F.max("_sw_arrival").alias("_sw_last"), F.min("_sw_arrival").alias("_sw_first")).collect()
        counts = dict(history.committed)
        # A partition's first arrival: the committed one, else (a partition new to this
        # run) its new rows'; unknown (None) where the committed set did not keep it.
        partition_firsts = {p: (history.partition_firsts or {}).get(p) for p in counts}
        for r in added:
            p = r["input_partition"]
            rows, checksum = counts.get(p, (0, 0))
            counts[p] = (rows + r["input_rows"], checksum + r["input_checksum"])
            if rows == 0:
                partition_firsts[p] = r["_sw_first"]
        latest = max([r["_sw_last"] for r in added] + ([s] if s is not None else []), default=None)
        arrived = (history.recorded.get("arrived") or 0) + sum(r["input_rows"] for r in added)
        firsts = None
        if self.first_arrivals:  # the committed ones, or (a set kept before them) the whole input's
            firsts = (self._firsts_of(self.new_rows(df), history.group_firsts) if history.group_firsts is not None
                      else self._firsts_of(df))
        self._stage(spark, counts, partition_firsts, latest, self._record(history, arrived, carried),
                    partition_type, arrival_type, firsts, whole_table=False)
        return False

    def _record(self, history: History, arrived: int, carried: dict | None) -> str | None:
        if history.tables is None or history.verdict is None:
            return None
        return input_files_record(history.tables, history.verdict.files, arrived, self.call,
                                  carried, firsts=bool(self.first_arrivals))

    def _committed(self, spark) -> tuple[dict | None, Any, dict | None, dict | None, dict | None]:
        """The committed set: ({partition: (rows, checksum)}, arrival position S, input-file
        record, {group key: first arrival}, {partition: first arrival}), all None when
        there is none (a table built before fingerprints were kept); the record is None
        when the set has none (kept before records were), the group firsts None when it
        has none (kept before them, or by a function that keeps none), a partition's
        first arrival None when it was counted before they were kept."""
        if not spark.catalog.tableExists(self.table):
            return None, None, None, None, None
        rows = [r.asDict() for r in spark.table(self.table).where("committed").collect()]
        header = [r for r in rows if r["input_partition"] is None and r["input_checksum"] is None
                  and r.get("group_key") is None]
        if not header:
            return None, None, None, None, None
        record = decoded(header[0].get("input_files"))
        firsts = None
        if record is not None and record.get("firsts") and self.first_arrivals:  # possibly none: no group yet
            firsts = {r["group_key"]: r["group_first"] for r in rows if r.get("group_key") is not None}
        partitions = [r for r in rows if r["input_partition"] is not None]
        return ({r["input_partition"]: (r["input_rows"], r["input_checksum"]) for r in partitions},
                header[0]["recorded_arrival"], record, firsts,
                {r["input_partition"]: r.get("first_arrival") for r in partitions})

    @staticmethod
    def _first_change(recorded: dict, now: list) -> dict | None:
        """The earliest partition whose processed rows differ from the record, with its
        row counts then and now; None if none does."""
        current = {r["input_partition"]: (r["_sw_rows_then"], r["_sw_checksum_then"]) for r in now
                   if r["input_partition"] is not None and r["_sw_rows_then"]}
        changed = sorted(p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p))
        if not changed:
            return None
        first = changed[0]
        return {"partition": first, "rows_then": recorded.get(first, (0, None))[0],
                "rows_now": current.get(first, (0, None))[0]}

    def _stage(self, spark, counts: dict, partition_firsts: dict, latest, record: str | None, partition_type,
               arrival_type, firsts: dict | None, *, whole_table: bool) -> None:
        """Overwrites the staged partition with ``counts`` ({partition: (rows,
        checksum)}) with ``partition_firsts`` (each one's first arrival), a header row
        (the arrival position ``latest`` and the input-file ``record``), after setting
        the property that says what the model's rows are (so staged rows never go
        without it)."""
        from pyspark.sql.types import DecimalType, LongType, StringType, StructField, StructType

        columns = StructType([StructField("input_partition", partition_type), StructField("input_rows", LongType()),
                              StructField("input_checksum", DecimalType(38, 0)),
                              StructField("recorded_arrival", arrival_type), StructField("input_files", StringType()),
                              StructField("group_key", StringType()), StructField("group_first", arrival_type),
                              StructField("first_arrival", arrival_type)])
        spark.sql(f"create table if not exists {self.table} ("
                  + ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in columns.fields)
                  + ", committed boolean) using parquet partitioned by (committed)")
        present = [c.name for c in spark.catalog.listColumns(self.table)]
        missing = [f"{f.name} {f.dataType.simpleString()}" for f in columns.fields if f.name not in present]
        if missing:  # a set kept before records or group firsts were: its committed rows read NULL there
            spark.sql(f"alter table {self.table} add columns ({', '.join(missing)})")
        spark.sql(f"alter table {self.table} set tblproperties "
                  f"('{STAGED_ROWS}' = '{'whole_table' if whole_table else 'new'}')")
        rows = [(p, n, checksum, latest, None, None, None, partition_firsts.get(p))
                for p, (n, checksum) in sorted(counts.items())]
        rows.append((None, None, None, latest, record, None, None, None))
        rows += [(None, None, None, None, None, key, first, None) for key, first in sorted((firsts or {}).items())]
        self._staged_firsts = firsts
        view = f"_sw_staged_fingerprints_{uuid.uuid4().hex}"  # threads share the session's views
        spark.createDataFrame(rows, columns).createOrReplaceTempView(view)
        try:
            spark.sql(f"insert overwrite table {self.table} partition (committed = false) select * from {view}")
        finally:
            spark.catalog.dropTempView(view)


def describe_call(**options: Any) -> str:
    """A function's parameters as text, for the input-file record: a function (a user
    aggregate) by its module and qualified name, not its address, which changes every
    run; any other value JSON does not know by its repr."""
    def described(value: Any) -> str:
        if callable(value) and hasattr(value, "__qualname__"):
            return f"{getattr(value, '__module__', '')}.{value.__qualname__}"
        return repr(value)

    return json.dumps(options, sort_keys=True, default=described)
