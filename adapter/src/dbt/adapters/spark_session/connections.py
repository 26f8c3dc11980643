"""Credentials and connection manager: dbt-spark's, under the adapter type `spark_session`."""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import (
    SparkConnectionManager,
    SparkConnectionMethod,
    SparkCredentials,
)
from dbt.adapters.spark.session import Connection as SessionHandle
from dbt.adapters.spark.session import Cursor, SessionConnectionWrapper
from dbt.include import spark_session as spark_session_include
from dbt_common.dataclass_schema import StrEnum
from dbt_common.exceptions import DbtRuntimeError

ADAPTER_TYPE = "spark_session"


class SparkSessionConnectionMethod(StrEnum):
    """dbt-spark's methods, and `connect`: a Spark Connect server (Spark 4's client
    protocol) that runs the SQL and the Python models, the dbt process holding a client
    session only."""

    THRIFT = "thrift"
    HTTP = "http"
    ODBC = "odbc"
    SESSION = "session"
    CONNECT = "connect"


# The methods where the dbt process holds a pyspark SparkSession (in-process, or a Spark
# Connect client's), so Python models, DataFrame seeds and the catalog API are at hand.
DATAFRAME_METHODS = (SparkSessionConnectionMethod.SESSION, SparkSessionConnectionMethod.CONNECT)


@dataclass
class SparkSessionCredentials(SparkCredentials):
    method: SparkSessionConnectionMethod = None  # type: ignore[assignment]
    # One folder for the embedded session's catalog: the warehouse, the Derby metastore
    # and Derby's log. Without it Spark puts both in the directory dbt runs from, so the
    # tables a run sees depend on where it was started. With it come the settings an
    # embedded Spark under dbt needs (embedded_defaults). Explicit settings win.
    spark_dir: str | None = None

    @property
    def type(self) -> str:
        return ADAPTER_TYPE

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.spark_dir:
            self.server_side_parameters = {**catalog_settings(self.spark_dir), **embedded_defaults(),
                                           **self.server_side_parameters}
        if self.method == SparkSessionConnectionMethod.CONNECT and not self.host.startswith("sc://"):
            raise DbtRuntimeError(f"method: connect needs a Spark Connect URL as its host, such as "
                                  f"sc://127.0.0.1:15002; got host: {self.host}")
        if self.method == SparkConnectionMethod.SESSION:
            # Python UDFs (applyInPandas, mapInPandas) start Python workers on the
            # executors; without this they start whatever `python3` is on PATH, which
            # lacks pandas/pyarrow. An explicit setting (another interpreter for a
            # remote worker) wins.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def catalog_settings(spark_dir: str) -> dict[str, str]:
    """The Spark settings that keep the warehouse and the Derby metastore in spark_dir,
    and the driver's logging under dbt (LOG4J2_PROPERTIES)."""
    folder = Path(spark_dir).expanduser().resolve()
    metastore = folder / "metastore_db"
    return {
        "spark.sql.warehouse.dir": str(folder / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={metastore};create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={folder} -Dlog4j2.configurationFile={LOG4J2_PROPERTIES}",
    }


# The driver's logging: errors only (not Spark's INFO and WARN lines between dbt's), and
# a failed task's Java stack trace left out: dbt shows the failure once.
LOG4J2_PROPERTIES = Path(spark_session_include.PACKAGE_PATH) / "log4j2.properties"


def embedded_defaults() -> dict[str, str]:
    """The settings an embedded Spark under dbt needs, given with `spark_dir` (a
    profile's explicit settings win): docs/adapter.md, "Defaults with spark_dir"."""
    return {
        # Spark's progress bars write over dbt's console lines.
        "spark.ui.showConsoleProgress": "false",
        # Errors only: Spark gives a pyspark session the shell's level (WARN) at start,
        # over the log4j2 file's; this sets it back once the session runs.
        "spark.log.level": "ERROR",
        # The embedded Derby metastore fails now and then to filter partitions by a
        # non-string key (an incremental model's date time_partition, a Fenl state's
        # bigint cut); with this, Spark lists the partitions and filters them itself.
        "spark.sql.hive.metastorePartitionPruningFallbackOnException": "true",
        # The Hive metastore records a table it creates or renames as having 0 rows (its
        # quick statistics), which Spark reports and the docs site shows as the table's
        # rows; without them there is no figure until ANALYZE TABLE counts the rows.
        "spark.hadoop.hive.stats.autogather": "false",
        # Spark's default of 200 shuffle partitions is for clusters: on one machine each
        # small query pays for 200 tasks. Four per core, at least 8.
        "spark.sql.shuffle.partitions": str(max(8, 4 * (os.cpu_count() or 2))),
        # The session's times in UTC unless the profile says otherwise: a window over a
        # timestamp then does not move with the machine's time zone.
        "spark.sql.session.timeZone": "UTC",
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
            return busy_metastore_message(match.group(1))
    return None


MISSING_SOURCE = re.compile(r"Failed to find the data source: (\S+?)\.?(\s|$)")


def missing_format_message(error: BaseException, model: str | None = None) -> str | None:
    """One line for a table format the session has no data source for (delta, iceberg
    or hudi without their jars), else None: Spark's own message is followed by pages of
    a Java trace."""
    for text in _error_texts(error):
        match = MISSING_SOURCE.search(text)
        if match:
            owner = f"Model '{model}'" if model else "The model"
            return (f"{owner} has file_format '{match.group(1)}', which this Spark session has no data source for. "
                    f"Either add the format's jars to the session (spark.jars.packages in the profile's "
                    f"server_side_parameters, or installed on the cluster or server), or build it as parquet "
                    f"(file_format: parquet, or no file_format: Spark's default source).")
    return None


def derby_folder(settings: dict[str, str]) -> Path:
    """The embedded Derby metastore's folder that `settings` give Spark (Derby's default:
    metastore_db in the working directory)."""
    url = settings.get("spark.hadoop.javax.jdo.option.ConnectionURL", "")
    match = re.search(r"databaseName=([^;]+)", url) if url.startswith("jdbc:derby:") else None
    return Path(match.group(1) if match else "metastore_db").expanduser().resolve()


def refuse_busy_metastore(settings: dict[str, str]) -> None:
    """Fail at once, in one line, when another process holds the embedded metastore this
    process's Spark is about to boot: Derby's file lock on dbex.lck, tried as Derby takes
    it (an fcntl lock). Without this the embedded session retries Hive's client for
    about 40 seconds and prints thousands of lines of Java traces before the same
    message. Only before this process starts its own JVM: a process's fcntl locks are
    all released when it closes any descriptor of the file, Derby's own included."""
    import fcntl

    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None:
        return
    if settings.get("spark.hadoop.javax.jdo.option.ConnectionURL", "jdbc:derby:").split(":")[:2] != ["jdbc", "derby"]:
        return  # a metastore in a database server admits many processes
    lock = derby_folder(settings) / "dbex.lck"
    try:
        descriptor = os.open(lock, os.O_RDWR)
    except OSError:
        return  # no metastore yet, or not ours to open: Spark will say
    try:
        fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise DbtRuntimeError(busy_metastore_message(str(lock.parent))) from None
    finally:
        os.close(descriptor)


def busy_metastore_message(folder: str) -> str:
    return (f"The Spark metastore {folder} is in use by another process: another dbt build or "
            f"Spark session is running on this catalog (embedded Derby admits one). Wait for it to finish, "
            f"give this run its own catalog folder (the profile's spark_dir), or let a server own the catalog "
            f"so builds can overlap (target connect or thrift; docs/adapter.md).")


class OneLineError(DbtRuntimeError):
    """A message said in one line. dbt-spark's exception_handler re-raises a statement's
    error as DbtRuntimeError(str(error)), and a DbtRuntimeError's text starts with its
    own 'Runtime Error' header: dbt would print that header twice. Without a node this
    error's text is the message alone; dbt's header for the model comes once."""

    def __str__(self, prefix: str = "! ") -> str:
        return self.msg if self.node is None else super().__str__(prefix)


class NullSafeSessionConnectionWrapper(SessionConnectionWrapper):
    """dbt-spark's session wrapper formats a None binding as the string 'None', so an
    empty cell of a seed loads as the text 'None' instead of NULL. Bind it as NULL.
    It also says in one line when the metastore is locked by another build, or when a
    table's format has no data source in the session, instead of a Java stack trace."""

    def execute(self, sql: str, bindings: Any = None) -> None:
        try:
            return super().execute(sql, bindings)
        except Exception as error:
            message = metastore_locked_message(error) or missing_format_message(error)
            if message is None:
                raise
            raise OneLineError(message) from None

    @classmethod
    def _fix_binding(cls, value: Any) -> str | float:
        if value is None:
            return "NULL"
        return super()._fix_binding(value)


def connect_session(url: str, settings: dict[str, str]):
    """The process's Spark Connect session on `url`, created once: SPARK_REMOTE makes
    every `SparkSession.builder.getOrCreate()` of this process (dbt-spark's cursor, the
    Python models, the engine) return it. `settings` are applied as session settings; a
    static one (the warehouse, the master) belongs to the server and is skipped. A server
    that does not answer fails in one line at once, not after the client's retries."""

    with _CONNECTING:
        if url not in _CONNECT_SESSIONS:
            _CONNECT_SESSIONS[url] = _new_connect_session(url, settings)
        return _CONNECT_SESSIONS[url]


# One Spark Connect session per process and URL, made by the first of dbt's threads to
# need it: its connections and the Python models share it, as they share the embedded one.
_CONNECT_SESSIONS: dict[str, Any] = {}
_CONNECTING = threading.Lock()


def _new_connect_session(url: str, settings: dict[str, str]):
    from pyspark.sql import SparkSession

    known = os.environ.get("SPARK_REMOTE")
    if known is not None and known != url:
        raise DbtRuntimeError(f"method: connect: this process already reaches Spark Connect at {known} "
                              f"(SPARK_REMOTE); the profile asks for {url}")
    address = url.removeprefix("sc://").split("/", 1)[0].split(";", 1)[0]
    host, _, port = address.rpartition(":") if ":" in address else (address, "", "15002")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as error:
        raise DbtRuntimeError(f"The Spark Connect server {url} does not answer ({error.strerror or error}): "
                              f"start it (make connect-up) or correct the profile's host") from None
    os.environ["SPARK_REMOTE"] = url
    return SparkSession.builder.config(map=dict(settings)).getOrCreate()


class ConnectCursor(Cursor):
    """dbt-spark's session cursor on the process's Spark Connect session: the session is
    made once by the connection, not rebuilt with every setting at each statement."""

    def __init__(self, session) -> None:
        super().__init__()
        self._session = session

    def execute(self, sql: str, *parameters: Any) -> None:
        if parameters:
            sql = sql % parameters
        from pyspark.errors import AnalysisException

        try:
            self._df = self._session.sql(sql)
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc


class ConnectHandle(SessionHandle):
    def __init__(self, session) -> None:
        super().__init__()
        self._session = session

    def cursor(self) -> Cursor:
        return ConnectCursor(self._session)


class SparkSessionConnectionManager(SparkConnectionManager):
    TYPE = ADAPTER_TYPE

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        credentials = connection.credentials
        if credentials.method == SparkSessionConnectionMethod.CONNECT:
            if connection.state == ConnectionState.OPEN:
                return connection
            session = connect_session(credentials.host, credentials.server_side_parameters)
            connection.handle = NullSafeSessionConnectionWrapper(ConnectHandle(session))
            connection.state = ConnectionState.OPEN
            return connection
        if credentials.method == SparkSessionConnectionMethod.SESSION and connection.state != ConnectionState.OPEN:
            refuse_busy_metastore(credentials.server_side_parameters)
        connection = super().open(connection)
        handle = connection.handle
        if type(handle) is SessionConnectionWrapper:
            handle.__class__ = NullSafeSessionConnectionWrapper
        return connection
