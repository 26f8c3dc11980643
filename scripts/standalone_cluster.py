"""A Spark standalone cluster on 127.0.0.1 from the pip pyspark package.

    python scripts/standalone_cluster.py up [--workers 2]   # prints the master URL
    python scripts/standalone_cluster.py down

`up` records the PIDs it started in .spark/cluster/pids.json and `down` stops exactly
those (never by process name). The tests use start()/stop() directly.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
STATE_DIR = PROJECT_DIR / ".spark" / "cluster"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


@dataclass
class Cluster:
    master_url: str
    web_url: str
    pids: list[int] = field(default_factory=list)

    def alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"{self.web_url}/json/", timeout=2) as response:
                state = json.load(response)
        except (OSError, ValueError):  # not listening yet, or a UI still starting answers an empty body
            return 0
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")


def start(workers: int = 2, cores: int = 1, memory: str = "3g", worker_python: str | None = None,
          state_dir: Path = STATE_DIR, timeout: float = 90, port: int | None = None) -> Cluster:
    """Start a master and `workers` workers; return once every worker is registered.
    `worker_python` is the interpreter the executors' Python workers use."""
    state_dir.mkdir(parents=True, exist_ok=True)
    spark_class = str(_spark_home() / "bin" / "spark-class")
    env = {**os.environ, "SPARK_HOME": str(_spark_home()), "SPARK_LOCAL_IP": "127.0.0.1"}
    if worker_python:
        env["PYSPARK_PYTHON"] = worker_python
    port, web_port = port or _free_port(), _free_port()
    cluster = Cluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{web_port}")

    def launch(name: str, *args: str) -> None:
        log = open(state_dir / f"{name}.log", "w")  # noqa: SIM115 - the process owns it
        process = subprocess.Popen([spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        cluster.pids.append(process.pid)

    try:  # a failed launch, a timeout, an interrupt: the processes started here go with it
        launch("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
               "--port", str(port), "--webui-port", str(web_port))
        for i in range(workers):
            work_dir = state_dir / f"worker-{i}"
            work_dir.mkdir(exist_ok=True)
            launch(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", cluster.master_url,
                   "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
                   "--webui-port", str(_free_port()), "--work-dir", str(work_dir))
        deadline = time.monotonic() + timeout
        while cluster.alive_workers() < workers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"standalone cluster: {workers} workers not registered in {timeout:.0f}s; "
                                   f"see the logs in {state_dir}")
            time.sleep(0.5)
    except BaseException:
        stop(cluster)
        raise
    return cluster


def stop(cluster: Cluster, timeout: float = 20) -> None:
    """Stop the processes this cluster started, by PID (and their process groups)."""
    for pid in cluster.pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    for pid in cluster.pids:
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
                finished, _ = os.waitpid(pid, os.WNOHANG)
                if finished:
                    break
            except (ProcessLookupError, ChildProcessError):
                break
            time.sleep(0.2)
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["up", "down"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=7077, help="master port (the cluster profile's default)")
    args = parser.parse_args()
    pid_file = STATE_DIR / "pids.json"
    if args.command == "up":
        cluster = start(workers=args.workers, port=args.port,
                        worker_python=os.environ.get("PYSPARK_PYTHON", sys.executable))
        pid_file.write_text(json.dumps(cluster.__dict__))
        print(cluster.master_url)
    else:
        if pid_file.exists():
            stop(Cluster(**json.loads(pid_file.read_text())))
            pid_file.unlink()


if __name__ == "__main__":
    main()
