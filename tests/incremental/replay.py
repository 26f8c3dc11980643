"""What the incremental tests share: the replayed seed, the incremental models, and the
comparison of a model's table with a snapshot. No pytest or conftest import here: the
replay driver runs it in a process with its own catalog."""

from __future__ import annotations

from tests.window_kinds import mechanism_models, replayed_models

SCHEMA = "stream_windows"
SEED = f"{SCHEMA}.hourly_temperatures"
FULL = f"{SCHEMA}.sw_harness_all_readings"
# The incremental models over the replayed hourly temperatures, and one of each
# incremental mechanism for the killed-run test (the batch tests build them all): RANGE
# windows (output watermark), the field dimension (append), count windows (watermark from
# the input), Fenl state, Fenl cron windows and interval semantics (a Python model
# overwriting partitions). Both from the window kinds' registry, tests/window_kinds.py.
MODELS = replayed_models()
KILLED_RUN_MODELS = mechanism_models()
# The tables a model keeps beside its own: the Fenl models' per-entity state, the
# cron window's entities, and the input partitions' fingerprints.
COMPANIONS = ["__fenl_state", "__fenl_entities", "__input_fingerprints"]


def differing_rows(spark, model: str, snapshot: str, schema: str = SCHEMA) -> int:
    """Rows in one table (the model's in `schema`) and not the other, with multiplicity
    (the incremental bench compares its models too). Doubles are compared to 9
    decimals: a window's floating-point sum depends on where Spark's segment tree
    starts (the first row of the rows a run reads), so an average can differ from the
    full rebuild's in its last bits."""
    a, b = f"{schema}.{model}", snapshot
    columns = ", ".join(f"round({f.name}, 9) as {f.name}" if f.dataType.typeName() in ("double", "float") else f.name
                        for f in spark.table(a).schema.fields)
    a, b = f"(select {columns} from {a})", f"(select {columns} from {b})"
    return spark.sql(f"select count(*) as n from ((select * from {a} except all select * from {b}) "
                     f"union all (select * from {b} except all select * from {a}))").first()["n"]
