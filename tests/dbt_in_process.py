"""dbt commands in this process, each project parsed once per set of files and options.

Shared by the suite's `run_dbt` (tests/conftest.py) and the killed-run driver
(tests/incremental/replay_driver.py, a process of its own). No pytest or conftest
import here, for the driver's sake.

A parsed manifest is kept and handed to the next command with the same project files
(path, mtime, size) and the same `--vars`, `--target` and `--profile`
(dbtRunner(manifest=...), dbt's own way to skip parsing): a partial parse costs
0.2-0.5 s, and a change of `--vars` a full parse, 3-6 s, each time the tests switch
between `late_rows` policies and back.
"""

from __future__ import annotations

import os
from pathlib import Path

# What dbt reads while parsing a project: every file under it but the build output, the
# catalogs and the tools' folders (an added seed property file must reparse; a file
# written under target/ must not).
NOT_PARSED = {"target", "logs", ".spark", ".venv", ".git", "__pycache__", ".hypothesis", ".pytest_cache"}
# The options that change what a parse renders (`--vars` above all: the models' configs
# read `var('late_rows')`).
PARSE_OPTIONS = ("--vars", "--target", "--profile")
# Commands that parse as they are asked to (`parse` itself) or need no manifest.
PARSING_ITSELF = {"parse", "deps", "debug", "clean", "init"}


def parse_key(args: tuple[str, ...] | list[str], project_dir: Path) -> tuple:
    """What a parse of `project_dir` under the command `args` depends on."""
    options = tuple((a, args[i + 1]) for i, a in enumerate(args[:-1]) if a in PARSE_OPTIONS)
    stamps = []
    for root, dirs, files in os.walk(project_dir):
        dirs[:] = sorted(d for d in dirs if d not in NOT_PARSED)
        for name in sorted(files):
            stat = os.stat(os.path.join(root, name))
            stamps.append((root, name, stat.st_mtime_ns, stat.st_size))
    return (str(project_dir), options, tuple(stamps))


class DbtInProcess:
    """Runs dbt commands in this process, keeping each parsed manifest (see above), and
    counts the commands and the parses."""

    def __init__(self) -> None:
        self.manifests: dict[tuple, object] = {}
        self.commands = 0
        self.parses = 0

    def invoke(self, args: list[str] | tuple[str, ...], *, project_dir: Path, locations: list[str]):
        """dbt `args` on `project_dir`; `locations` are the options that say where dbt
        finds and writes its files (--profiles-dir, --target-path, ...), given to the
        parse too. Returns the dbtRunnerResult."""
        from dbt.cli.main import dbtRunner

        self.commands += 1
        where = ["--project-dir", str(project_dir), *locations]
        manifest = None
        if args[0] not in PARSING_ITSELF:
            key = parse_key(args, project_dir)
            if key not in self.manifests:
                self.parses += 1
                options = [x for pair in key[1] for x in pair]
                parsed = dbtRunner().invoke(["parse", *options, *where, "--no-write-json"])
                # A project that does not parse: the command parses it again and says why.
                self.manifests[key] = parsed.result if parsed.success else None
            manifest = self.manifests[key]
        nodes = set(manifest.nodes) if manifest is not None else set()
        try:
            return dbtRunner(manifest=manifest).invoke([*args, *where])
        finally:
            # An inline query (compile or show --inline) adds its node to the manifest and
            # removes it after a run that completes, not after one that fails: remove it
            # here, so the next inline query does not meet a second `inline_query`.
            for added in set(manifest.nodes) - nodes if manifest is not None else ():
                del manifest.nodes[added]
