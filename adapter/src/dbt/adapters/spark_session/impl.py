"""SparkSessionAdapter: dbt-spark's adapter with in-session Python models."""

from __future__ import annotations

from dbt.adapters.base import PythonJobHelper
from dbt.adapters.spark.impl import SparkAdapter
from dbt.adapters.spark_session.connections import SparkSessionConnectionManager
from dbt.adapters.spark_session.python_submissions import SessionPythonJobHelper


class SparkSessionAdapter(SparkAdapter):
    ConnectionManager = SparkSessionConnectionManager

    @property
    def default_python_submission_method(self) -> str:
        return "session"

    @property
    def python_submission_helpers(self) -> dict[str, type[PythonJobHelper]]:
        # Keep dbt-spark's Databricks helpers available under their own names.
        return {**super().python_submission_helpers, "session": SessionPythonJobHelper}

    @classmethod
    def get_adapter_run_info(cls, config):
        # dbt derives the module from the class name ("sparksession"); ours is spark_session.
        from importlib import import_module

        from dbt.adapters.base.relation import AdapterTrackingRelationInfo

        return AdapterTrackingRelationInfo(
            adapter_name=cls.type(),
            base_adapter_version=import_module("dbt.adapters.__about__").version,
            adapter_version=import_module("dbt.adapters.spark_session.__version__").version,
            model_adapter_details=cls._get_adapter_specific_run_info(config),
        )
