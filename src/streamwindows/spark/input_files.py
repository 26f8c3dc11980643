"""The Python models' input-file record: what lets a scheduled run skip recounting and
hashing the whole history (the fingerprints, :mod:`streamwindows.spark.fingerprints`),
and tell a run with nothing new from one with new rows without reading them. The SQL
models keep the same record (macros/incremental/_sw_input_files.sql); this is its port to
a DataFrame input, with the same rules (docs/incremental.md, "Rows changed in place").

Files do not change in place in a lakehouse: an update, a delete or a compaction writes
new files and drops old ones. So each build records, per table the input's plan reads,
the newest file's modification time M and the row count N of its files, with the hash
of the input's optimized plan (a view's definition, nested views expanded), and, for an
input that is not one of those tables as it stands (a view that computes, a join), the
count of its rows with an arrival position up to S (the build's latest). The next run's
history is as that build saw it when the plan is the same, each table's files up to M
still hold N rows, and the rows of the newer files were not processed (none with an
arrival position up to S: counted in the newer files of a table input, or over the
whole input otherwise). Every number comes from the files' footers or from the newer
files alone (Spark prunes files by ``_metadata`` filters), so the check costs about the
same at any history, but for the input that computes (one column over all its rows).

An input with a leaf that is not a table of files (a DataFrame built from local rows, a
JDBC source, a cached relation) has no record: its rows can change without a file
changing, and every run compares the fingerprints.

What it relies on: the storage gives a new or rewritten file a modification time later
than the files before it, as file systems and object stores do."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

_LEAF = re.compile(r"^Relation ([A-Za-z0-9_.`]+)\[.*\] (parquet|orc|avro|json|csv|text)$")
_MODIFIED = "_metadata.file_modification_time"


@dataclass(frozen=True)
class InputTables:
    """The input's plan hash, the tables its leaves read (sorted), and whether the input
    is one of them as it stands (``direct``)."""

    plan: str
    tables: tuple[str, ...]
    direct: bool


def input_tables(df, arrival: str | None = None) -> InputTables | None:
    """The tables ``df`` reads, from its optimized plan (expression ids dropped); None
    when a leaf is not a table of files. ``direct`` when ``df`` is one table as it
    stands, or a projection of one that passes ``arrival`` through (added columns keep
    its rows one for one, so its newer files' rows are the input's new rows). Works
    over Spark Connect (an ``explain`` query, no JVM handle)."""
    spark = df.sparkSession
    view = f"_sw_input_files_{uuid.uuid4().hex}"  # threads share the session's views
    df.createOrReplaceTempView(view)
    before = spark.conf.get("spark.sql.debug.maxToStringFields", None)
    # Explain abbreviates lists of more than 25 fields ("... 3 more fields"), which
    # would hide a change in a wide input's columns from the plan's hash.
    spark.conf.set("spark.sql.debug.maxToStringFields", "100000")
    try:
        explained = spark.sql(f"explain extended select * from {view}").collect()[0][0]
    finally:
        if before is None:
            spark.conf.unset("spark.sql.debug.maxToStringFields")
        else:
            spark.conf.set("spark.sql.debug.maxToStringFields", before)
        spark.catalog.dropTempView(view)
    if "== Optimized Logical Plan ==" not in explained or "== Physical Plan ==" not in explained:
        return None
    optimized = explained.split("== Optimized Logical Plan ==")[1].split("== Physical Plan ==")[0]
    optimized = re.sub(r"#[0-9]+L?", "", optimized).strip()
    if " more fields" in optimized:
        return None
    lines = optimized.split("\n")
    tables: list[str] = []
    for i, line in enumerate(lines):  # a line is a leaf when the next one is not nested deeper
        depth = len(line) - len(line.lstrip(" :+-"))
        next_depth = len(lines[i + 1]) - len(lines[i + 1].lstrip(" :+-")) if i + 1 < len(lines) else -1
        if next_depth <= depth:
            leaf = _LEAF.match(line.lstrip(" :+-"))
            if leaf is None:
                return None
            if leaf.group(1) not in tables:
                tables.append(leaf.group(1))
    direct = len(tables) == 1 and (len(lines) == 1 or (
        len(lines) == 2 and arrival is not None and lines[0].startswith("Project [") and lines[0].endswith("]")
        and arrival in _top_level_items(lines[0][len("Project ["):-1])))
    return InputTables(hashlib.md5(optimized.encode()).hexdigest(), tuple(sorted(tables)), direct)


def _top_level_items(text: str) -> list[str]:
    """A plan's list (``a, f(b, c) AS d``) split at its top-level commas."""
    items, depth, current = [], 0, []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return items


@dataclass(frozen=True)
class Verdict:
    """What the input's files say. ``unchanged``: the history (the rows up to the
    recorded S) is as the recorded build saw it; ``grew``: some table has files newer
    than its recorded M (meaningful when ``unchanged``). ``files`` is this run's
    [[M, N], ...] per table, for its own record."""

    unchanged: bool
    grew: bool
    files: list[list[int]]


def verdict(df, tables: InputTables, recorded: dict | None, arrival: str, processed_until: Any) -> Verdict:
    """One query over the tables' footers and newer files (plus, for an input that is
    not a table as it stands, one column over its rows): whether the history is as
    ``recorded`` (the record's JSON, decoded) describes it, with S ``processed_until``."""
    spark = df.sparkSession
    matching = (recorded is not None and recorded.get("plan") == tables.plan
                and len(recorded.get("files", [])) == len(tables.tables))
    s = _literal(processed_until)
    questions = []
    for i, table in enumerate(tables.tables):
        questions.append(f"(select count(*) from {table}) as n{i}")
        if matching:
            newer = f"{_MODIFIED} > timestamp_micros({int(recorded['files'][i][0])})"
            old = f"count_if({_quote(arrival)} <= {s})" if tables.direct and s is not None else "0"
            questions.append(f"(select struct(count(*) as new, unix_micros(max({_MODIFIED})) as m, {old} as old) "
                             f"from {table} where {newer}) as newer{i}")
        else:
            questions.append(f"(select unix_micros(max({_MODIFIED})) from {table}) as newest{i}")
    view = None
    if matching and not tables.direct:
        view = f"_sw_input_files_{uuid.uuid4().hex}"
        df.createOrReplaceTempView(view)
        arrived = f"count_if({_quote(arrival)} <= {s})" if s is not None else "0"
        questions.append(f"(select {arrived} from {view}) as arrived")
    try:
        row = spark.sql("select " + ", ".join(questions)).collect()[0]
    finally:
        if view is not None:
            spark.catalog.dropTempView(view)
    unchanged, grew, files = matching, False, []
    for i in range(len(tables.tables)):
        n = int(row[f"n{i}"])
        if matching:
            newer = row[f"newer{i}"]
            m = newer["m"] if newer["m"] is not None else int(recorded["files"][i][0])
            unchanged = unchanged and n - int(newer["new"]) == int(recorded["files"][i][1]) and not newer["old"]
            grew = grew or int(newer["new"]) > 0
        else:
            m = row[f"newest{i}"] if row[f"newest{i}"] is not None else 0
        files.append([int(m), n])
    if matching and not tables.direct:
        unchanged = unchanged and int(row["arrived"]) == int(recorded.get("arrived") or 0)
    return Verdict(unchanged, grew, files)


def record(tables: InputTables, files: list[list[int]], arrived: int | None, call: str,
           carried: dict | None = None, *, firsts: bool = False) -> str:
    """The record a build stages with its fingerprints (JSON; without the tables' names,
    as the SQL models' record: the plan's hash names them). ``arrived``: the input's
    rows with an arrival position up to this build's S (kept for an input that is not
    a table as it stands); ``call``: the function's parameters, so that a run with other
    parameters is never taken for one with nothing new; ``carried``: values the function
    hands its next run over an unchanged history (JSON values); ``firsts``: the set holds
    every group's first arrival (a set staged before they were kept holds none)."""
    return json.dumps({"plan": tables.plan, "files": files, "direct": tables.direct,
                       "arrived": None if tables.direct else arrived, "call": call, "carried": carried or {},
                       "firsts": firsts})


def decoded(text: str | None) -> dict | None:
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _quote(column: str) -> str:
    return "`" + column.replace("`", "``") + "`"


def _literal(value: Any) -> str | None:
    """An arrival position as a SQL literal (a number or a timestamp)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"an arrival position, not {value!r}")
    if isinstance(value, (int, float)):
        return repr(value)
    import datetime as dt
    import decimal

    if isinstance(value, decimal.Decimal):
        return f"{value}BD"
    if isinstance(value, dt.datetime):
        return f"timestamp'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"date'{value.isoformat()}'"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"
