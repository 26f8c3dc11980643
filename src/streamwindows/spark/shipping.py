"""What the engine sends to the executors: its own source, and values computed on the
driver. Both work on a classic SparkSession (in-process, or the driver of a cluster)
and on a Spark Connect client's, which has no SparkContext: no addPyFile, no broadcast
variables, no defaultParallelism.

A worker interpreter needs only pyspark, pandas, pyarrow and numpy: the package's own
source is zipped once per SparkContext (per session over Spark Connect, whose artifacts
are the session's) and added to the workers' Python path."""

from __future__ import annotations

import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any

_SHIPPED: set[str] = set()
# dbt's threads start Python models at once: Spark refuses a second streamwindows.zip
# from another folder, so one thread ships and the others wait for it.
_SHIPPING = threading.Lock()
_PARALLELISM: dict[str, int] = {}


def is_connect(spark) -> bool:
    """True for a Spark Connect client's session (pyspark.sql.connect)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def ship_package(spark) -> None:
    connect = is_connect(spark)
    key = spark.session_id if connect else spark.sparkContext.applicationId
    with _SHIPPING:
        if key in _SHIPPED:
            return
        package = Path(__file__).resolve().parents[1]
        archive = Path(tempfile.mkdtemp(prefix="streamwindows-")) / "streamwindows.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for source in sorted(package.rglob("*.py")):
                zipped.write(source, source.relative_to(package.parent))
        if connect:
            spark.addArtifacts(str(archive), pyfile=True)
        else:
            spark.sparkContext.addPyFile(str(archive))
        _SHIPPED.add(key)


class _Captured:
    """A driver value that travels inside the function that reads it (Spark Connect has
    no broadcast variables): read as ``.value``, like a Broadcast."""

    def __init__(self, value: Any) -> None:
        self.value = value


def shared_value(spark, value: Any):
    """``value`` for the executors' functions to read as ``.value``: a broadcast variable
    (sent once per executor), or over Spark Connect a copy pickled with the function."""
    if is_connect(spark):
        return _Captured(value)
    return spark.sparkContext.broadcast(value)


def default_parallelism(spark) -> int:
    """The tasks Spark runs at once by default (the cluster's cores). Over Spark Connect,
    read once per session from the partitions of a plain `range`, which Spark splits into
    that many."""
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    if spark.session_id not in _PARALLELISM:
        from pyspark.sql import functions as F

        top = spark.range(0, 1 << 20).select(F.max(F.spark_partition_id()).alias("p")).collect()[0]["p"]
        _PARALLELISM[spark.session_id] = int(top) + 1
    return _PARALLELISM[spark.session_id]
