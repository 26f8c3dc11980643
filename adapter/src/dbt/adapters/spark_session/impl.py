"""SparkSessionAdapter: dbt-spark's adapter with in-session Python models."""

from __future__ import annotations

from dbt.adapters.base import PythonJobHelper, available
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

    @available
    def clear_leftover_location(self, relation) -> bool:
        """Remove the folder a killed write left where `relation`'s managed table would
        live, when the catalog has no such table; True if a folder was removed. Spark
        refuses to create a managed table over an existing folder
        (LOCATION_ALREADY_EXISTS), so without this one killed CREATE TABLE AS or
        saveAsTable blocks the model until someone deletes the folder by hand."""
        from pyspark.sql import SparkSession

        if not relation.schema or not relation.identifier:
            return False
        # The session dbt-spark's cursor runs every statement in (getOrCreate, as it
        # does; the active session is per thread and dbt runs models in its own).
        spark = SparkSession.builder.getOrCreate()
        name = f"{relation.schema}.{relation.identifier}"
        if not spark.catalog.databaseExists(relation.schema) or spark.catalog.tableExists(name):
            return False
        jvm = spark.sparkContext._jvm
        catalog = spark._jsparkSession.sessionState().catalog()
        identifier = jvm.org.apache.spark.sql.catalyst.TableIdentifier(
            relation.identifier.lower(), jvm.scala.Some(relation.schema.lower())
        )
        location = jvm.org.apache.hadoop.fs.Path(catalog.defaultTablePath(identifier))
        filesystem = location.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        if not filesystem.exists(location):
            return False
        return bool(filesystem.delete(location, True))

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
