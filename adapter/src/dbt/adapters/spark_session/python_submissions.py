"""The `session` submission method: run a compiled dbt Python model in-process."""

from __future__ import annotations

from typing import Any

from dbt.adapters.base import PythonJobHelper
from dbt.adapters.spark.connections import SparkConnectionMethod
from dbt_common.exceptions import DbtRuntimeError


class SessionConnectionRequired(DbtRuntimeError):
    """The `session` submission method was used on a non-session connection."""


class SessionPythonJobHelper(PythonJobHelper):
    """Executes the compiled model (model code plus dbt's write-table epilogue) with
    `spark` bound to the SparkSession that runs the project's SQL, so a Python model
    sees the same catalog, warehouse and configuration, local or on a cluster."""

    def __init__(self, parsed_model: dict[str, Any], credentials: Any) -> None:
        method = getattr(credentials, "method", None)
        if method != SparkConnectionMethod.SESSION:
            raise SessionConnectionRequired(
                f"Python model '{parsed_model.get('alias', parsed_model.get('name'))}': "
                f"submission_method 'session' runs the model in the dbt process's "
                f"SparkSession and needs `method: session` in the profile; got "
                f"`method: {method}`. Use method: session, or submit Python models to "
                f"Databricks with dbt-databricks."
            )
        self.parsed_model = parsed_model
        self.credentials = credentials

    def _session(self):
        from pyspark.sql import SparkSession

        builder = SparkSession.builder.enableHiveSupport()
        for key, value in self.credentials.server_side_parameters.items():
            builder = builder.config(key, value)
        return builder.getOrCreate()

    def submit(self, compiled_code: str) -> None:
        spark = self._session()
        name = self.parsed_model.get("unique_id", self.parsed_model.get("alias", "model"))
        spark.sparkContext.setJobDescription(f"dbt python model {name}")
        namespace: dict[str, Any] = {"spark": spark, "__name__": "__dbt_python_model__"}
        try:
            exec(compile(compiled_code, f"<dbt python model {name}>", "exec"), namespace)
        finally:
            spark.sparkContext.setJobDescription(None)
