"""scripts/standalone_cluster.py's start-up, without a cluster: how it reads a master's
state while the master is still starting, and that a start that fails takes its
processes with it."""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import standalone_cluster  # put on sys.path by this folder's conftest


class _MasterState(BaseHTTPRequestHandler):
    """Serves the master's /json/ as its server's `body` says (b'' as a UI still starting)."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = self.server.body
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def master_ui():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _MasterState)
    server.body = b""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_master_still_starting_counts_no_worker_until_its_state_lists_them(master_ui):
    cluster = standalone_cluster.Cluster("spark://127.0.0.1:1", f"http://127.0.0.1:{master_ui.server_port}")
    master_ui.body = b""  # the UI answers before it has a state: the bench's failure of 2026-12-02
    assert cluster.alive_workers() == 0
    master_ui.body = json.dumps({"workers": [{"state": "ALIVE"}, {"state": "DEAD"}, {"state": "ALIVE"}]}).encode()
    assert cluster.alive_workers() == 2
    nothing_listening = standalone_cluster.Cluster("spark://127.0.0.1:1", f"http://127.0.0.1:{standalone_cluster._free_port()}")
    assert nothing_listening.alive_workers() == 0


def _unreadable_master(self):
    raise ConnectionResetError("the master's UI dropped the connection")


@pytest.mark.parametrize("failure", ["timeout", "error", "launch"])
def test_a_start_that_fails_stops_the_processes_it_started(tmp_path, monkeypatch, failure):
    port = standalone_cluster._free_port()
    if failure == "error":  # an error while waiting (before, it left the processes running)
        monkeypatch.setattr(standalone_cluster.Cluster, "alive_workers", _unreadable_master)
    if failure == "launch":  # the worker's folder cannot be made: the master is already running
        (tmp_path / "worker-0").write_text("a file where the worker's folder goes")
    expected = {"timeout": "workers not registered in 0s", "error": "dropped the connection",
                "launch": "worker-0"}[failure]
    with pytest.raises((RuntimeError, ConnectionResetError, FileExistsError), match=expected):
        standalone_cluster.start(workers=1, cores=1, memory="1g", state_dir=tmp_path, timeout=0, port=port)
    # The master's command line holds "--port <port>", the worker's the master's URL:
    # neither may outlive the error.
    left = subprocess.run(["pgrep", "-f", f"(--port {port}( |$))|(spark://127.0.0.1:{port}( |$))"],
                          capture_output=True, text=True).stdout.split()
    assert left == [], f"processes left after a failed start: {left}"
