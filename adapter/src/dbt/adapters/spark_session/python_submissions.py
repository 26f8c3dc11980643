"""The `session` submission method: run a compiled dbt Python model where the SQL runs,
in the dbt process's SparkSession (method: session) or its Spark Connect session
(method: connect)."""

from __future__ import annotations

from typing import Any

from dbt.adapters.base import PythonJobHelper
from dbt.adapters.spark_session.connections import (
    DATAFRAME_METHODS,
    SparkSessionConnectionMethod,
    missing_format_message,
)
from dbt_common.exceptions import DbtRuntimeError


class SessionConnectionRequired(DbtRuntimeError):
    """A Python model on a method whose dbt process holds no SparkSession (thrift, http,
    odbc: SQL statements only)."""


def python_models_refused(model_name: str, method: str) -> SessionConnectionRequired:
    return SessionConnectionRequired(
        f"Python model '{model_name}' cannot run on `method: {method}`: it sends SQL statements only. "
        f"Python models run on `method: session` (embedded Spark or a standalone cluster: targets "
        f"local, cluster) or `method: connect` (a Spark Connect server: target connect); see docs/adapter.md."
    )


def dataframe_session(credentials: Any):
    """The pyspark SparkSession this dbt process runs on: the embedded one (created with
    the profile's settings if it is not running yet) or the Spark Connect client's."""
    from pyspark.sql import SparkSession

    if credentials.method == SparkSessionConnectionMethod.CONNECT:
        from dbt.adapters.spark_session.connections import connect_session

        return connect_session(credentials.host, credentials.server_side_parameters)
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in credentials.server_side_parameters.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


class SessionPythonJobHelper(PythonJobHelper):
    """Executes the compiled model (model code plus dbt's write-table epilogue) with
    `spark` bound to the SparkSession that runs the project's SQL, so a Python model
    sees the same catalog, warehouse and configuration: local, on a cluster, or on a
    Spark Connect server."""

    def __init__(self, parsed_model: dict[str, Any], credentials: Any) -> None:
        method = getattr(credentials, "method", None)
        if method not in DATAFRAME_METHODS:
            raise python_models_refused(parsed_model.get("alias", parsed_model.get("name")), method)
        self.parsed_model = parsed_model
        self.credentials = credentials

    def submit(self, compiled_code: str) -> None:
        spark = dataframe_session(self.credentials)
        name = self.parsed_model.get("unique_id", self.parsed_model.get("alias", "model"))
        # The Spark UI's job descriptions name the model (no SparkContext over Connect).
        context = None if self.credentials.method == SparkSessionConnectionMethod.CONNECT else spark.sparkContext
        if context is not None:
            context.setJobDescription(f"dbt python model {name}")
        namespace: dict[str, Any] = {"spark": spark, "__name__": "__dbt_python_model__"}
        try:
            exec(compile(compiled_code, f"<dbt python model {name}>", "exec"), namespace)
        except Exception as error:
            message = missing_format_message(error, self.parsed_model.get("alias", self.parsed_model.get("name")))
            if message is None:
                raise
            raise DbtRuntimeError(message) from None
        finally:
            if context is not None:
                context.setJobDescription(None)
