"""Credentials and connection manager: dbt-spark's, under the adapter type `spark_session`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
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
    @property
    def type(self) -> str:
        return ADAPTER_TYPE

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.method == SparkConnectionMethod.SESSION:
            # Python UDFs (applyInPandas, mapInPandas) start Python workers on the
            # executors; without this they start whatever `python3` is on PATH, which
            # lacks pandas/pyarrow. An explicit setting (another interpreter for a
            # remote worker) wins.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


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
