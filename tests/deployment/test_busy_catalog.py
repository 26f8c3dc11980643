"""The embedded default with no server: a second build on a catalog another process
holds (here, this test run's own Spark) fails at once with one line, instead of Hive's
retries and thousands of lines of Java traces."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PROJECT_DIR, SPARK_DIR


def test_a_second_embedded_build_on_a_busy_catalog_fails_at_once_in_one_line(spark):
    assert spark.sql("select 1 as one").collect()[0]["one"] == 1  # this process holds the catalog's Derby
    dbt = str(Path(sys.executable).parent / "dbt")
    folder = SPARK_DIR.parent / "pytest-busy"
    completed = subprocess.run(
        [dbt, "run", "--select", "weather_minmax_24h", "--target", "local", "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR), "--target-path", str(folder / "target"), "--log-path",
         str(folder / "logs")],
        env={**os.environ, "STREAM_WINDOWS_SPARK_DIR": str(SPARK_DIR)}, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 2, completed.stdout[-3000:]
    assert (f"The Spark metastore {SPARK_DIR / 'metastore_db'} is in use by another process: another dbt build "
            "or Spark session is running on this catalog") in completed.stdout
    output = completed.stdout + completed.stderr
    assert "at org.apache" not in output and len(output.splitlines()) < 30, output[-3000:]
