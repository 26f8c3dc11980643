"""Credentials and connection manager: dbt-spark's, under the adapter type `spark_session`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt.adapters.contracts.connection import Connection
from dbt.adapters.spark.connections import (
    SparkConnectionManager,
    SparkConnectionMethod,
    SparkCredentials,
)
from dbt.adapters.spark.session import SessionConnectionWrapper

ADAPTER_TYPE = "spark_session"


@dataclass
class SparkSessionCredentials(SparkCredentials):
    # One folder for the embedded session's catalog: the warehouse, the Derby metastore
    # and Derby's log. Without it Spark puts both in the directory dbt runs from, so the
    # tables a run sees depend on where it was started. Explicit settings win.
    spark_dir: str | None = None

    @property
    def type(self) -> str:
        return ADAPTER_TYPE

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.spark_dir:
            self.server_side_parameters = {**catalog_settings(self.spark_dir), **self.server_side_parameters}
        if self.method == SparkConnectionMethod.SESSION:
            # Python UDFs (applyInPandas, mapInPandas) start Python workers on the
            # executors; without this they start whatever `python3` is on PATH, which
            # lacks pandas/pyarrow. An explicit setting (another interpreter for a
            # remote worker) wins.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def catalog_settings(spark_dir: str) -> dict[str, str]:
    """The Spark settings that keep the warehouse and the Derby metastore in spark_dir."""
    folder = Path(spark_dir).expanduser().resolve()
    metastore = folder / "metastore_db"
    return {
        "spark.sql.warehouse.dir": str(folder / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={metastore};create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={folder}",
    }


class NullSafeSessionConnectionWrapper(SessionConnectionWrapper):
    """dbt-spark's session wrapper formats a None binding as the string 'None', so an
    empty cell of a seed loads as the text 'None' instead of NULL. Bind it as NULL."""

    @classmethod
    def _fix_binding(cls, value: Any) -> str | float:
        if value is None:
            return "NULL"
        return super()._fix_binding(value)


class SparkSessionConnectionManager(SparkConnectionManager):
    TYPE = ADAPTER_TYPE

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        connection = super().open(connection)
        handle = connection.handle
        if type(handle) is SessionConnectionWrapper:
            handle.__class__ = NullSafeSessionConnectionWrapper
        return connection
