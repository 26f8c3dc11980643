"""A Python model's input fingerprints, two-phase, in the catalog of `spark` (the
model's session: embedded or Spark Connect). Its run stages them (partition
`committed = false` of `<relation>__input_fingerprints`, written by streamwindows'
scheduled-run functions before dbt writes the model's rows); the adapter's incremental
materialization settles them around the write (impl.py's staged_fingerprints and
staged_whole_table call these)."""

from __future__ import annotations

from dbt.adapters.spark_session.failpoints import failpoint

# The table property the engine's run sets on its staged set (as
# streamwindows.spark.fingerprints.STAGED_ROWS: the adapter does not import the engine).
STAGED_ROWS = "stream_windows.staged_rows"


def settle_staged(spark, relation, action: str) -> bool:
    """'discard' before the model runs (an earlier failed run's staged rows never
    describe this run's table) or 'commit' after the write has succeeded, which makes the
    staged rows the committed ones. True if there was anything to do. A table without the
    `committed` partition column (a SQL model's fingerprints) is left alone. Fault
    injection, for the tests: STREAM_WINDOWS_FAILPOINT=in_commit fails a commit between
    its two operations (read here, where the point is, as the materialization's
    failpoints read it)."""
    name = f"{relation.schema}.{relation.identifier}__input_fingerprints"
    if not spark.catalog.tableExists(name):
        return False
    if "committed" not in [c.name for c in spark.catalog.listColumns(name) if c.isPartition]:
        return False
    # The catalog's partition list, not a Spark job: a staged set is never empty (it
    # has a header row), so its partition is listed whenever it exists.
    if "committed=false" not in [r[0] for r in spark.sql(f"show partitions {name}").collect()]:
        return False
    if action == "commit":
        # Two catalog operations, no Spark job: the staged partition's folder is
        # renamed to the committed one's. (A process killed between the two leaves no
        # committed set: the next run records afresh, comparing nothing.)
        spark.sql(f"alter table {name} drop if exists partition (committed = true)")
        failpoint("in_commit", relation.identifier)
        spark.sql(f"alter table {name} partition (committed = false) rename to partition (committed = true)")
    else:
        spark.sql(f"alter table {name} drop if exists partition (committed = false)")
    return True


def staged_as_whole_table(spark, relation) -> bool:
    """True when the Python model's run staged fingerprints and marked its rows as the
    whole table (the table property STAGED_ROWS is 'whole_table'): under
    late_rows='reprocess', the run found input rows changed below what the table held and
    recomputed the table, so the materialization swaps the rows in instead of writing
    them by partition or appending them."""
    name = f"{relation.schema}.{relation.identifier}__input_fingerprints"
    if not spark.catalog.tableExists(name):
        return False
    properties = {r[0]: r[1] for r in spark.sql(f"show tblproperties {name}").collect()}
    if properties.get(STAGED_ROWS) != "whole_table":
        return False
    # The property outlives a failed run's staged rows (discarded before each run): it
    # speaks for this run only when this run staged a set.
    return "committed=false" in [r[0] for r in spark.sql(f"show partitions {name}").collect()]
