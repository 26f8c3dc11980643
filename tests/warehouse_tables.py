"""Two builds' tables compared through their warehouse folders: the embedded build's
and one made elsewhere (a cluster, a Spark Connect or Thrift server) on this machine.
Both are read by the run's own session with the same reader, so the comparison does not
depend on how each side returns its rows."""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA_FOLDER = Path("warehouse") / "stream_windows.db"


def built_tables(target_dir: Path, *, kinds=("model", "seed")) -> list[str]:
    """The tables a dbt run wrote (run_results.json of its target folder): models
    materialized as table or incremental, and seeds, that succeeded."""
    results = json.loads((target_dir / "run_results.json").read_text())["results"]
    manifest = json.loads((target_dir / "manifest.json").read_text())["nodes"]
    tables = []
    for result in results:
        node = manifest.get(result["unique_id"])
        if node is None or node["resource_type"] not in kinds or result["status"] != "success":
            continue
        if node["resource_type"] == "seed" or node["config"]["materialized"] in ("table", "incremental"):
            tables.append(node["alias"])
    return sorted(tables)


def assert_same_tables(spark, tables: list[str], local_catalog: Path, other_catalog: Path) -> None:
    """Each table has the same rows, as many times each, in both catalogs: every column
    equal, except floating ones within 1e-9 (relative or absolute), since a floating sum
    depends on the order Spark adds the partitions' partial sums (merged moments, CORR, a
    scheduled run's mean resumed from its state), exactly as Spark's own sum does.
    Rounding both sides instead would split two such sums that straddle a rounding
    boundary."""
    import numpy as np

    assert tables, "no table to compare"
    for table in tables:
        local, other = (_sorted_rows(spark, catalog / SCHEMA_FOLDER / table)
                        for catalog in (local_catalog, other_catalog))
        assert list(local.columns) == list(other.columns), (table, list(local.columns), list(other.columns))
        assert len(local) > 0, f"{table} is empty"
        assert len(local) == len(other), (table, len(local), len(other))
        for column in local.columns:
            left, right = local[column], other[column]
            if left.dtype.kind == "f":
                same = np.isclose(left.to_numpy(), right.to_numpy(), rtol=1e-9, atol=1e-9, equal_nan=True)
            else:
                same = (left == right).to_numpy() | (left.isna() & right.isna()).to_numpy()
            assert same.all(), (table, column, local[~same].head(3).to_dict("records"),
                                other[~same].head(3).to_dict("records"))


def _sorted_rows(spark, folder: Path):
    """A table's rows as pandas, every column but the floating ones as text, sorted by the
    text columns, then the floating ones."""
    from pyspark.sql import functions as F

    frame = spark.read.parquet(str(folder))
    floating = [f.name for f in frame.schema.fields if f.dataType.simpleString() in ("double", "float")]
    text = [c for c in frame.columns if c not in floating]
    rows = frame.select(*[F.col(c) if c in floating else F.col(c).cast("string").alias(c)
                          for c in frame.columns]).toPandas()
    return rows.sort_values([*text, *floating], na_position="last", kind="stable").reset_index(drop=True)
