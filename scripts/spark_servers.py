"""Spark servers on 127.0.0.1 from the pip pyspark package: a Spark Connect server and
a Spark Thrift Server, each owning one catalog folder (its warehouse and Derby
metastore), so that any number of dbt processes can build against it at once.

    python scripts/spark_servers.py connect up [--port 15002] [--spark-dir .spark]
    python scripts/spark_servers.py connect down
    python scripts/spark_servers.py thrift up [--port 10000] [--spark-dir .spark]
    python scripts/spark_servers.py thrift down

Both are launched with pyspark's own spark-submit (the class start-connect-server.sh
names, and HiveThriftServer2, for which the wheel has no start script), with the
settings of profiles.yml's `local` target: the server runs the Spark that `make run`
embeds. `up` records the PID it started in .spark/<server>/pid.json and `down` stops
exactly that process (never by process name). The tests use start()/stop() directly.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

PROJECT_DIR = Path(__file__).resolve().parents[1]
SERVERS = {
    "connect": ("org.apache.spark.sql.connect.service.SparkConnectServer", 15002),
    "thrift": ("org.apache.spark.sql.hive.thriftserver.HiveThriftServer2", 10000),
}
_ENV_VAR = re.compile(r"\{\{\s*env_var\('([^']+)'(?:,\s*'([^']*)')?\)\s*\}\}")


@dataclass
class Server:
    kind: str
    port: int
    pid: int
    log: str

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}" if self.kind == "connect" else f"127.0.0.1:{self.port}"


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def profile_settings(spark_dir: Path, target: str = "local") -> dict[str, str]:
    """The Spark settings of profiles.yml's `target`, its env_var() calls read from the
    environment, with the warehouse and the metastore in spark_dir."""
    from dbt.adapters.spark_session.connections import catalog_settings

    profile = yaml.safe_load((PROJECT_DIR / "profiles.yml").read_text())
    settings = profile["stream_windows"]["outputs"][target]["server_side_parameters"]
    env = {**os.environ, "STREAM_WINDOWS_SPARK_DIR": str(spark_dir)}
    rendered = {key: _ENV_VAR.sub(lambda m: env.get(m.group(1), m.group(2) or ""), str(value))
                for key, value in settings.items()}
    rendered.update(catalog_settings(str(spark_dir)))
    # What dbt-spark sets in every session it opens; here the server's default too.
    rendered["spark.sql.ansi.enabled"] = "false"
    return rendered


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def start(kind: str, spark_dir: Path = PROJECT_DIR / ".spark", port: int | None = None,
          python: str | None = None, timeout: float = 120) -> Server:
    """Start the `kind` server on `port` over the catalog in spark_dir; return once it
    accepts connections. `python`: the interpreter of its Python workers (UDFs, Python
    models' pandas functions)."""
    main_class, default_port = SERVERS[kind]
    port = port or default_port
    if _answers(port):
        raise RuntimeError(f"{kind} server: port {port} is taken (a server already up? `make {kind}-down`)")
    spark_dir = Path(spark_dir).resolve()
    state_dir = spark_dir / kind
    state_dir.mkdir(parents=True, exist_ok=True)
    settings = profile_settings(spark_dir)
    settings.pop("spark.ui.enabled", None)  # a server's UI is where its queries are watched
    settings["spark.app.name"] = f"stream_windows {kind} server"
    # The catalog in the Hive metastore, as the embedded session's enableHiveSupport()
    # has it: a Connect server's default is an in-memory catalog, lost when it stops
    # (and one whose table renames leave partitions at the old folder).
    settings["spark.sql.catalogImplementation"] = "hive"
    if kind == "connect":
        settings["spark.connect.grpc.binding.address"] = "127.0.0.1"
        settings["spark.connect.grpc.binding.port"] = str(port)
        arguments = []
    else:
        arguments = ["--hiveconf", f"hive.server2.thrift.port={port}",
                     "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1"]
    settings.setdefault("spark.ui.port", "0")
    command = [str(_spark_home() / "bin" / "spark-submit"), "--class", main_class]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    command += ["spark-internal", *arguments]
    interpreter = python or os.environ.get("PYSPARK_PYTHON", sys.executable)
    env = {**os.environ, "SPARK_HOME": str(_spark_home()), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": interpreter, "PYSPARK_DRIVER_PYTHON": interpreter}
    for variable in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED"):
        env.pop(variable, None)
    log_path = state_dir / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   cwd=state_dir, start_new_session=True)
    server = Server(kind, port, process.pid, str(log_path))
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(server)
            tail = "".join(log_path.read_text(errors="replace").splitlines(keepends=True)[-20:])
            raise RuntimeError(f"{kind} server did not start on port {port}; the end of {log_path}:\n{tail}")
        time.sleep(0.5)
    return server


def stop(server: Server, timeout: float = 30) -> None:
    """Stop the server's process (and its process group: the Python workers)."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            finished, _ = os.waitpid(server.pid, os.WNOHANG)
            if finished:
                return
        except ChildProcessError:  # not our child (make's `up` was another process)
            try:
                os.kill(server.pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.2)
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(SERVERS))
    parser.add_argument("command", choices=["up", "down"])
    parser.add_argument("--port", type=int, help="the port (connect 15002, thrift 10000: the profiles' defaults)")
    parser.add_argument("--spark-dir", type=Path, default=Path(os.environ.get("STREAM_WINDOWS_SPARK_DIR",
                                                                              PROJECT_DIR / ".spark")))
    args = parser.parse_args()
    pid_file = args.spark_dir.resolve() / args.kind / "pid.json"
    if args.command == "up":
        server = start(args.kind, args.spark_dir, args.port)
        pid_file.write_text(json.dumps(server.__dict__))
        print(f"{args.kind} server at {server.url} (catalog {args.spark_dir.resolve()}, log {server.log})")
    elif pid_file.exists():
        stop(Server(**json.loads(pid_file.read_text())))
        pid_file.unlink()


if __name__ == "__main__":
    main()
