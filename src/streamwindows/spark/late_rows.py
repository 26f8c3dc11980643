"""Late rows in the Python models' builds: the `late_rows` policies of the SQL window
macros (``'error'``, ``'audit'``, ``'reprocess'``), for engines whose stream must arrive
in order.

The field dimension and interval semantics read one stream in arrival order across
groups, count windows each group's stream; a row whose time is before the time of a
row that arrived earlier (in the same stream) breaks that order, and a full build fails
on it with OutOfOrder. Such a row is this module's late row:

* ``'error'`` (default): the build fails with the engine's OutOfOrder error, naming the
  row, full builds and scheduled runs alike.
* ``'audit'``: the late rows go to ``<model>__late_rows`` (the input's columns, then
  ``late_reason``, ``late_watermark``: the latest time that had arrived before the row,
  ``audited_at``: the shape of the SQL models' audit) and stay out of every window, in
  this build and the later ones. A full build audits them afresh from the whole input:
  the same rows, since a late row never raises the latest time.
* ``'reprocess'``: a full rebuild over the input fails on such a row too, so there is
  no table to recompute towards: the build fails as with ``'error'``. (Rows late to one
  group but in order in their own stream, a count window's, are no late rows here: every
  policy recomputes their windows, as a full build includes them.)

A full build under ``'error'`` or ``'reprocess'`` takes the audited rows in again: it
drops the audit table first, as the SQL models' ``--full-refresh`` does after its write.
The audit is written while the model runs, before dbt writes the model's rows (a Python
model has no hook between the two): a run that fails after it keeps those rows audited,
and its rerun writes the rows it would have written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from streamwindows.errors import InvalidParameterError

POLICIES = ("error", "audit", "reprocess")
AUDIT_SUFFIX = "__late_rows"
_BEFORE = "_sw_latest_before"  # the latest time among the rows that arrived before this one


@dataclass(frozen=True)
class LateRows:
    """A build's late-row policy: ``time`` and ``arrival`` name the input's columns,
    ``streams`` the group columns of one ordered stream (empty: one stream across the
    groups); ``audit_table`` is ``<this>__late_rows``, None without ``this``."""

    late_rows: str
    audit_table: str | None
    time: str
    arrival: str
    streams: tuple[str, ...]

    def input_for(self, df, *, full: bool):
        """The input the build aggregates: ``df`` without the rows audited before (a
        scheduled run) and, under ``'audit'``, without the late rows it finds, which it
        appends to the audit table first. A full build starts the audit afresh."""
        table = self.audit_table
        if table is None:
            return df
        spark = df.sparkSession
        if full:
            spark.sql(f"drop table if exists {table}")
        elif spark.catalog.tableExists(table):
            df = _without_arrivals(df, spark.table(table), self.arrival)
        if self.late_rows != "audit":
            return df
        if self._audit(df) == 0:
            return df
        return _without_arrivals(df, spark.table(table), self.arrival)

    def _audit(self, df) -> int:
        """Appends ``df``'s late rows to the audit table; returns how many."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        order = Window.partitionBy(*self.streams) if self.streams else Window.partitionBy()
        before = order.orderBy(F.col(self.arrival).asc_nulls_first()).rowsBetween(Window.unboundedPreceding, -1)
        marked = df.withColumn(_BEFORE, F.max(self.time).over(before))
        late = marked.where(F.col(self.time) < F.col(_BEFORE)).select(
            *[F.col(c) for c in df.columns],
            F.lit(f"{self.time} before the latest processed time").alias("late_reason"),
            F.col(_BEFORE).cast("string").alias("late_watermark"),
            F.current_timestamp().alias("audited_at"),
        ).cache()  # counted, then written
        try:
            count = late.count()
            if count:
                spark = df.sparkSession
                if not spark.catalog.tableExists(self.audit_table):
                    late.limit(0).write.format("parquet").saveAsTable(self.audit_table)
                late.select(*spark.table(self.audit_table).columns).write.insertInto(self.audit_table)
            return count
        finally:
            late.unpersist()


def late_rows_policy(function: str, late_rows: str | None, this: str | None, *, time: str, arrival: str,
                     streams: Sequence[str] = (), model: str | None = None) -> LateRows:
    """The checked policy (raises InvalidParameterError before any Spark job); None is
    'error', the default (a model whose config sets no policy)."""
    late_rows = "error" if late_rows is None else late_rows
    if late_rows not in POLICIES:
        raise InvalidParameterError(function, "late_rows", "one of 'error', 'audit', 'reprocess'", late_rows,
                                    model=model)
    if this is not None and (not isinstance(this, str) or not this.strip()):
        raise InvalidParameterError(function, "this", "the model's table name (str(dbt.this))", this, model=model)
    if late_rows == "audit" and this is None:
        raise InvalidParameterError(function, "this", "the model's table name (str(dbt.this)) with "
                                    "late_rows='audit': the late rows go to <this>__late_rows", this, model=model)
    return LateRows(late_rows, f"{this.strip()}{AUDIT_SUFFIX}" if this else None, time, arrival, tuple(streams))


def _without_arrivals(df, audited, arrival: str):
    """``df`` without the rows whose arrival position ``audited`` holds (a NULL position
    is never audited: such a row stays, and the engine names it)."""
    from pyspark.sql import functions as F

    keys = audited.select(F.col(arrival).alias("_sw_audited")).distinct()
    return df.join(F.broadcast(keys), df[arrival] == keys["_sw_audited"], "left_anti")
