"""Credentials and connection manager: dbt-spark's, under the adapter type `spark_session`."""

from __future__ import annotations

import os
import re
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
from dbt_common.exceptions import DbtRuntimeError

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


DERBY_LOCKED = re.compile(r"Another instance of Derby may have already booted the database (\S+?)\.?(\s|$)")


def _error_texts(error: BaseException):
    """The messages of an error and of its causes, the JVM's included: pyspark keeps the
    Java exception of an error it raises, and the Derby lock is named only deep in its
    chain of causes, under a Hive 'Unable to instantiate SessionHiveMetaStoreClient'."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield str(error)
        java = getattr(error, "_origin", None)
        depth = 0
        while java is not None and depth < 50:
            try:
                yield str(java.toString())
                java = java.getCause()
            except Exception:  # a JVM already gone: nothing more to read
                break
            depth += 1
        error = error.__cause__ or error.__context__


def metastore_locked_message(error: BaseException) -> str | None:
    """One line for the embedded Derby metastore held by another process, else None."""
    for text in _error_texts(error):
        match = DERBY_LOCKED.search(text)
        if match:
            return (
                f"The Spark metastore {match.group(1)} is in use by another process: another dbt build or "
                f"Spark session is running on this catalog (embedded Derby admits one). Wait for it to finish, "
                f"or give this run its own catalog folder (the profile's spark_dir)."
            )
    return None


class NullSafeSessionConnectionWrapper(SessionConnectionWrapper):
    """dbt-spark's session wrapper formats a None binding as the string 'None', so an
    empty cell of a seed loads as the text 'None' instead of NULL. Bind it as NULL.
    It also says in one line when the metastore is locked by another build, instead of
    Hive's stack trace."""

    def execute(self, sql: str, bindings: Any = None) -> None:
        try:
            return super().execute(sql, bindings)
        except Exception as error:
            message = metastore_locked_message(error)
            if message is None:
                raise
            raise DbtRuntimeError(message) from None

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
