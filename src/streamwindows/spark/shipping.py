"""Make the engine importable on executors that do not have the project installed.

A worker interpreter needs only pyspark, pandas, pyarrow and numpy: the package's own
source is zipped once per SparkContext and added with addPyFile."""

from __future__ import annotations

import tempfile
import threading
import zipfile
from pathlib import Path

_SHIPPED: set[str] = set()
# dbt's threads start Python models at once: Spark refuses a second streamwindows.zip
# from another folder, so one thread ships and the others wait for it.
_SHIPPING = threading.Lock()


def ship_package(spark) -> None:
    context = spark.sparkContext
    key = context.applicationId
    with _SHIPPING:
        if key in _SHIPPED:
            return
        package = Path(__file__).resolve().parents[1]
        archive = Path(tempfile.mkdtemp(prefix="streamwindows-")) / "streamwindows.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for source in sorted(package.rglob("*.py")):
                zipped.write(source, source.relative_to(package.parent))
        context.addPyFile(str(archive))
        _SHIPPED.add(key)
