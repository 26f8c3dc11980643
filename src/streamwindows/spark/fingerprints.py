"""Rows changed in place below what a Python model's table holds.

A row corrected or deleted in place among the rows a table was built from (the same
arrival position, another value; or a row gone) is no new row: no late-row check sees
it, and a scheduled run, which recomputes only from the table's latest time, would keep
the windows made of the old value. So every build records, per input partition (the
partition of each row's time), how many rows it read and a checksum (the sum of each
row's ``xxhash64``), with the latest arrival position it read. The next scheduled run
counts the same rows again (arrival position up to the recorded one; the audited late
rows are out of both counts) and fails, naming the earliest partition that differs,
under every ``late_rows`` policy: the table is a Python model's only state, and it holds
nothing from which to recompute an earlier partition (a SQL model's ``'reprocess'``
does, from its stored windows). ``--full-refresh`` rebuilds from the corrected input.

The record is ``<this>__input_fingerprints``, partitioned by ``committed``. A run stages
its fingerprints (``committed = false``) while the model runs, before dbt writes the
model's rows; the adapter's materialization moves them to ``committed = true`` only
after that write has succeeded, and discards staged rows before a model runs. So a run
that fails before or during its write leaves the table and the committed fingerprints
that describe it as they were. Each staged set carries a header row (NULL partition and
checksum) holding the arrival position, so that even an empty input stages something.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from streamwindows.errors import ChangedInputError

SUFFIX = "__input_fingerprints"


@dataclass(frozen=True)
class InputFingerprints:
    """``table`` is ``<this>__input_fingerprints`` (None without ``this``: nothing is
    recorded or checked); ``time`` and ``arrival`` name the input's columns,
    ``partition_of`` maps a time Column to its partition's first value."""

    table: str | None
    time: str
    arrival: str
    partition_of: Callable

    @classmethod
    def of(cls, this: str | None, *, time: str, arrival: str, partition_of: Callable) -> InputFingerprints:
        return cls(f"{this.strip()}{SUFFIX}" if this else None, time, arrival, partition_of)

    def check_and_stage(self, df, *, full: bool, function: str, model: str | None) -> None:
        """A scheduled run (``full`` false) first compares the rows of the committed
        fingerprints with ``df`` (the input without audited rows), raising
        ChangedInputError at the earliest partition that differs; every build then
        stages ``df``'s fingerprints. One Spark job reads ``df``'s time, arrival and
        row hash for both."""
        if self.table is None:
            return
        from pyspark.sql import functions as F

        spark = df.sparkSession
        committed = None if full else self._committed(spark)
        if committed is None:  # nothing to compare: every row is counted for the record
            within = F.lit(True)
        elif committed[1] is None:  # recorded over no rows: none was processed
            within = F.lit(False)
        else:
            within = F.col("_sw_arrival") <= F.lit(committed[1])
        hashed = df.select(self.partition_of(F.col(self.time)).alias("input_partition"),
                           F.col(self.arrival).alias("_sw_arrival"),
                           F.xxhash64(F.struct(*[df[c] for c in df.columns])).cast("decimal(38,0)").alias("_sw_hash"))
        per_partition = hashed.groupBy("input_partition").agg(
            F.count(F.lit(1)).alias("input_rows"), F.sum("_sw_hash").alias("input_checksum"),
            F.max("_sw_arrival").alias("_sw_last"),
            F.count(F.when(within, F.lit(1))).alias("_sw_rows_then"),
            F.sum(F.when(within, F.col("_sw_hash"))).alias("_sw_checksum_then"))
        now = per_partition.collect()
        if committed:
            self._raise_if_changed(committed, now, function, model)
        self._stage(spark, now, per_partition.schema["input_partition"].dataType,
                    df.schema[self.arrival].dataType)

    def _committed(self, spark) -> tuple[dict, object] | None:
        """The committed record: ({partition: (rows, checksum)}, arrival position), None
        when there is none (a table built before fingerprints were kept)."""
        if not spark.catalog.tableExists(self.table):
            return None
        rows = spark.table(self.table).where("committed").collect()
        header = [r for r in rows if r["input_partition"] is None and r["input_checksum"] is None]
        if not header:
            return None
        return ({r["input_partition"]: (r["input_rows"], r["input_checksum"]) for r in rows
                 if r["input_partition"] is not None}, header[0]["recorded_arrival"])

    def _raise_if_changed(self, committed: tuple[dict, object], now: list, function: str,
                          model: str | None) -> None:
        recorded, processed_until = committed
        current = {r["input_partition"]: (r["_sw_rows_then"], r["_sw_checksum_then"]) for r in now
                   if r["input_partition"] is not None and r["_sw_rows_then"]}
        changed = sorted(p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p))
        if changed:
            first = changed[0]
            raise ChangedInputError(function=function, time=self.time, partition=first,
                                    rows_then=recorded.get(first, (0, None))[0],
                                    rows_now=current.get(first, (0, None))[0], arrival=self.arrival,
                                    processed_until=processed_until, model=model)

    def _stage(self, spark, now: list, partition_type, arrival_type) -> None:
        """Overwrites the staged partition with ``now`` and a header row."""
        from pyspark.sql.types import DecimalType, LongType, StructField, StructType

        columns = StructType([StructField("input_partition", partition_type), StructField("input_rows", LongType()),
                              StructField("input_checksum", DecimalType(38, 0)),
                              StructField("recorded_arrival", arrival_type)])
        spark.sql(f"create table if not exists {self.table} ("
                  + ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in columns.fields)
                  + ", committed boolean) using parquet partitioned by (committed)")
        latest = max((r["_sw_last"] for r in now if r["_sw_last"] is not None), default=None)
        rows = [(r["input_partition"], r["input_rows"], r["input_checksum"], latest) for r in now
                if r["input_partition"] is not None] + [(None, None, None, latest)]
        view = f"_sw_staged_fingerprints_{uuid.uuid4().hex}"  # threads share the session's views
        spark.createDataFrame(rows, columns).createOrReplaceTempView(view)
        try:
            spark.sql(f"insert overwrite table {self.table} partition (committed = false) select * from {view}")
        finally:
            spark.catalog.dropTempView(view)
