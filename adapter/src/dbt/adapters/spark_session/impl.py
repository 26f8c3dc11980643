"""SparkSessionAdapter: dbt-spark's adapter with in-session Python models."""

from __future__ import annotations

from dbt.adapters.base import PythonJobHelper, available
from dbt.adapters.spark.impl import SparkAdapter
from dbt.adapters.spark_session.connections import (
    DATAFRAME_METHODS,
    SparkSessionConnectionManager,
    SparkSessionConnectionMethod,
)
from dbt.adapters.spark_session.failpoints import failpoint
from dbt.adapters.spark_session.python_submissions import (
    SessionPythonJobHelper,
    dataframe_session,
    python_models_refused,
)
from dbt.adapters.spark_session.staged_fingerprints import settle_staged, staged_as_whole_table


class SparkSessionAdapter(SparkAdapter):
    ConnectionManager = SparkSessionConnectionManager

    @property
    def default_python_submission_method(self) -> str:
        return "session"

    @property
    def python_submission_helpers(self) -> dict[str, type[PythonJobHelper]]:
        # Keep dbt-spark's Databricks helpers available under their own names.
        return {**super().python_submission_helpers, "session": SessionPythonJobHelper}

    @property
    def _method(self) -> str:
        return self.config.credentials.method

    @available
    def runs_dataframes(self) -> bool:
        """True when this dbt process holds a pyspark SparkSession (method session or
        connect); False on methods that send SQL statements only (thrift, http, odbc)."""
        return self._method in DATAFRAME_METHODS

    def _python_model_session(self, relation):
        """The SparkSession a Python model's materialization works in; on a SQL-only
        method, the one-line refusal, before anything of the model has run."""
        if not self.runs_dataframes():
            raise python_models_refused(relation.identifier, self._method)
        return dataframe_session(self.config.credentials)

    @available
    def failpoint(self, point: str, model_name: str) -> str:
        """failpoints.failpoint, for the materializations; '' to render."""
        failpoint(point, model_name)
        return ""

    @available
    def staged_fingerprints(self, relation, action: str) -> bool:
        """A Python model's staged input fingerprints discarded (before it runs) or
        committed (after its write): staged_fingerprints.settle_staged."""
        if action not in ("discard", "commit") or not relation.schema or not relation.identifier:
            raise ValueError(f"staged_fingerprints({relation}, {action!r})")
        return settle_staged(self._python_model_session(relation), relation, action)

    @available
    def staged_whole_table(self, relation) -> bool:
        """Whether the Python model's run recomputed its whole table:
        staged_fingerprints.staged_as_whole_table."""
        if not relation.schema or not relation.identifier:
            raise ValueError(f"staged_whole_table({relation})")
        return staged_as_whole_table(self._python_model_session(relation), relation)

    @available
    def clear_leftover_location(self, relation) -> bool:
        """Remove the folder a killed write left where `relation`'s managed table would
        live, when the catalog has no such table; True if a folder was removed. Spark
        refuses to create a managed table over an existing folder
        (LOCATION_ALREADY_EXISTS), so without this one killed CREATE TABLE AS or
        saveAsTable blocks the model until someone deletes the folder by hand.
        Embedded Spark and standalone clusters only (method: session): a Spark Connect
        or Thrift server's file system is not this process's to change, and there
        Spark's LOCATION_ALREADY_EXISTS error names the folder (docs/adapter.md)."""
        from pyspark.sql import SparkSession

        if self._method != SparkSessionConnectionMethod.SESSION or not relation.schema or not relation.identifier:
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

    def _build_spark_relation_list(self, row_list, relation_info_func):
        """dbt-spark's list, without the session's temporary views. `show table extended
        in <schema>` lists them too, in no schema (an incremental model's `__dbt_tmp`
        view outlives its model in the session); dbt's catalog then held a relation
        without a schema, and `dbt docs generate` after a run in the same session (an
        orchestrator's process, a notebook, dbt's own adapter suites) failed on it."""
        relations = super()._build_spark_relation_list(row_list, relation_info_func)
        return [relation for relation in relations if relation.schema]

    @available
    def first_unparseable_seed_value(self, agate_table, typed_columns: dict) -> list | None:
        """The first typed seed value that its type makes NULL, in CSV order: [row
        (1-based), column name, raw value], or None. `typed_columns`: column name ->
        type, for the columns dbt read as text (column_types). One Spark job over the
        rows in memory, casting as the load does (ANSI off: a value Spark cannot parse
        becomes NULL). On a SQL-only method (thrift), the same cast in SQL statements
        over the values, in chunks."""
        from pyspark.sql import functions as F

        if not typed_columns or not agate_table.rows:
            return None
        if not self.runs_dataframes():
            return self._first_unparseable_by_sql(agate_table, typed_columns)
        frame = _seed_frame(agate_table)
        first = None
        for name, type_ in typed_columns.items():
            bad = F.col(f"`{name}`").isNotNull() & F.col(f"`{name}`").cast(type_).isNull()
            first = F.when(bad, F.lit(name)) if first is None else first.when(bad, F.lit(name))
        found = (frame.select("_sw_row", first.alias("_sw_column"), *[F.col(f"`{n}`") for n in typed_columns])
                 .where(F.col("_sw_column").isNotNull()).orderBy("_sw_row").limit(1).collect())
        if not found:
            return None
        row = found[0]
        return [row["_sw_row"], row["_sw_column"], row[row["_sw_column"]]]

    def _first_unparseable_by_sql(self, agate_table, typed_columns: dict, chunk: int = 2000) -> list | None:
        names = list(typed_columns)
        positions = [list(agate_table.column_names).index(n) for n in names]
        aliases = [f"c{i}" for i in range(len(names))]
        first = " ".join(f"when {a} is not null and cast({a} as {typed_columns[n]}) is null then {i}"
                         for i, (a, n) in enumerate(zip(aliases, names, strict=True)))
        rows = agate_table.rows
        for start in range(0, len(rows), chunk):
            values = ", ".join(
                "(" + ", ".join([str(number), *[_sql_text(rows[number - 1][p]) for p in positions]]) + ")"
                for number in range(start + 1, min(start + chunk, len(rows)) + 1))
            sql = (f"select row_number, bad from (select row_number, case {first} end as bad "
                   f"from values {values} as seed(row_number, {', '.join(aliases)})) "
                   f"where bad is not null order by row_number limit 1")
            _, table = self.execute(sql, fetch=True)
            if len(table.rows):
                number, column = int(table.rows[0][0]), names[int(table.rows[0][1])]
                return [number, column, rows[number - 1][positions[int(table.rows[0][1])]]]
        return None

    @available
    def load_seed_rows(self, relation, agate_table, column_types: list) -> int:
        """Appends a seed's rows to its (new, empty) table through the session's
        DataFrame writer, each column cast to its type as dbt-spark's
        `insert ... values (cast(%s as type), ...)` does: numbers as doubles, times as
        'YYYY-MM-DD hh:mm:ss.fff', the rest as text. One write instead of one SQL
        statement per 10,000 values, which Spark must parse (about 30 s for the 17,518
        rows of the hourly temperatures). Returns the number of rows."""
        from pyspark.sql import functions as F

        if not agate_table.rows:
            return 0
        frame = _seed_frame(agate_table)
        names = list(agate_table.column_names)
        columns = [F.col(f"`{n}`").cast(t).alias(n) for n, t in zip(names, column_types, strict=True)]
        frame.select(*columns).write.insertInto(f"{relation.schema}.{relation.identifier}")
        return len(agate_table.rows)

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


def _sql_text(value) -> str:
    """A seed's raw text value as a Spark SQL string literal (NULL for an empty cell)."""
    if value is None:
        return "NULL"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def _seed_frame(agate_table):
    """A seed's rows as a DataFrame (`_sw_row`, 1-based, then its columns): numbers as
    doubles, times as 'YYYY-MM-DD hh:mm:ss.fff' text, everything else as text, as
    dbt-spark's session cursor binds them; empty cells NULL."""
    import datetime as dt

    import agate
    from dbt_common.clients.agate_helper import Integer
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    # The types dbt's agate inference gave (the column_types columns are Text; dbt's
    # Integer is not an agate Number).
    numeric = [isinstance(t, (agate.Number, Integer)) for t in agate_table.column_types]

    def bound(value, is_number):
        if value is None:
            return None
        if is_number:
            return float(value)
        if isinstance(value, dt.datetime):
            return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        return str(value)

    fields = [StructField(name, DoubleType() if numeric[i] else StringType())
              for i, name in enumerate(agate_table.column_names)]
    schema = StructType([StructField("_sw_row", LongType()), *fields])
    data = [(position, *[bound(v, numeric[i]) for i, v in enumerate(row)])
            for position, row in enumerate(agate_table.rows, start=1)]
    return SparkSession.builder.getOrCreate().createDataFrame(data, schema)
