"""Exceptions raised by the streamwindows engine.

Every message names what went wrong precisely enough to fix the input without a
debugger: parameter errors follow the house format
``<function>(): `<param>` must be <rule>; got '<value>'.``, and row errors name the
model, the arrival position, the group and the offending values.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ChangedInputError",
    "InvalidIntervalError",
    "InvalidParameterError",
    "NullFieldError",
    "OutOfOrderError",
    "RepeatedArrivalError",
    "StreamWindowsError",
    "format_allowed",
    "format_value",
]


def format_value(value: Any) -> str:
    """Render a value for an error message: numpy scalars as Python, times as ISO text."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (pd.Timestamp, _dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, pd.Timedelta):
        return str(value)
    if value is None or value is pd.NA or value is pd.NaT:
        return "NULL"
    return str(value)


def format_allowed(values: Iterable[Any]) -> str:
    """``'a', 'b', 'c'``: the allowed values of a parameter, quoted, in the given order."""
    return ", ".join(f"'{v}'" for v in values)


def _format_group(group: Mapping[str, Any] | None) -> str:
    if not group:
        return "(no group_by)"
    return "{" + ", ".join(f"{k!r}: {_python(v)!r}" for k, v in group.items()) + "}"


def _python(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def _format_position(position: int, seq: Any) -> str:
    """A row's arrival position as the SQL macros say it: its arrival-order column's value
    (``seq``) when there is one, else its 0-based index in the input's order."""
    return f"arrival position {format_value(seq) if seq is not None else position}"


def _model_prefix(model: str | None) -> str:
    return f"model '{model}': " if model else ""


class StreamWindowsError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidParameterError(StreamWindowsError, ValueError):
    """A parameter (or an aggregate spec) is invalid; raised before any data is read.

    Message: ``<function>(): `<parameter>` must be <rule>; got '<value>'<note>.`` with
    ``model '<model>': `` in front when the model is known. ``rule`` lists the allowed
    values when there is a set of them.
    """

    def __init__(
        self,
        function: str,
        parameter: str,
        rule: str,
        value: Any,
        *,
        note: str = "",
        model: str | None = None,
    ) -> None:
        self.function = function
        self.parameter = parameter
        self.rule = rule
        self.value = value
        self.model = model
        message = (
            f"{_model_prefix(model)}{function}(): `{parameter}` must be {rule}; "
            f"got '{format_value(value)}'{note}."
        )
        super().__init__(message)


class RepeatedArrivalError(InvalidParameterError):
    """Two rows of one group at one arrival position: which arrived first is unknown.

    Message, in the SQL macros' words: ``<function>(): `<column>` must be a column whose
    values are unique (each row's arrival position); got <column> <seq> twice in group
    <group>.``
    """

    def __init__(self, function: str, column: str, seq: Any, group: Mapping[str, Any] | None,
                 *, model: str | None = None) -> None:
        self.function = function
        self.parameter = column
        self.rule = "a column whose values are unique (each row's arrival position)"
        self.value = seq
        self.group = dict(group or {})
        self.model = model
        place = f" in group {_format_group(group)}" if group else ""
        StreamWindowsError.__init__(
            self, f"{_model_prefix(model)}{function}(): `{column}` must be {self.rule}; "
                  f"got {column} {format_value(seq)} twice{place}.")


class OutOfOrderError(StreamWindowsError):
    """The dimension field went backwards: a tuple's value is below the previous tuple's.

    ``position`` is the 0-based index in arrival order, ``seq`` the row's arrival-order
    column value when one was given (the message names it as the arrival position, as
    the SQL macros do), ``group`` a dict of group column -> value; ``previous_seq`` and
    ``previous_position`` the same of the row before.
    """

    def __init__(
        self,
        *,
        field: str,
        position: int,
        group: Mapping[str, Any],
        value: Any,
        previous_value: Any,
        seq: Any = None,
        previous_position: int | None = None,
        previous_group: Mapping[str, Any] | None = None,
        model: str | None = None,
        previous_seq: Any = None,
    ) -> None:
        self.model = model
        self.field = field
        self.previous_seq = previous_seq
        self.position = position
        self.seq = seq
        self.group = dict(group)
        self.value = value
        self.previous_value = previous_value
        self.previous_position = previous_position
        self.previous_group = None if previous_group is None else dict(previous_group)
        previous = f"previous value {format_value(previous_value)}"
        if previous_position is not None or previous_seq is not None:
            previous += f" ({_format_position(previous_position, previous_seq)}"
            if previous_group is not None:
                previous += f", group {_format_group(previous_group)}"
            previous += ")"
        message = (
            f"{_model_prefix(model)}OutOfOrder: field `{field}` went backwards at "
            f"{_format_position(position, seq)} in group {_format_group(group)}: "
            f"value {format_value(value)} is less than the {previous}. "
            "The field must not decrease in arrival order."
        )
        super().__init__(message)


class NullFieldError(StreamWindowsError):
    """The dimension field (or the arrival-order column) is NULL or not finite on a row."""

    def __init__(
        self,
        *,
        field: str,
        position: int,
        group: Mapping[str, Any],
        seq: Any = None,
        value: Any = None,
        model: str | None = None,
    ) -> None:
        self.model = model
        self.field = field
        self.position = position
        self.seq = seq
        self.group = dict(group)
        self.value = value
        what = "NULL" if value is None else f"not finite ({format_value(value)})"
        message = (
            f"{_model_prefix(model)}NULL field: `{field}` is {what} at "
            f"{_format_position(position, seq)} in group {_format_group(group)}. "
            "Every row needs a finite value."
        )
        super().__init__(message)


class InvalidIntervalError(StreamWindowsError):
    """An interval event's end is not after its start (or ``end < start``): a lifetime
    ``[start, end)`` must hold at least one instant."""

    def __init__(
        self,
        *,
        start_field: str,
        end_field: str,
        position: int,
        group: Mapping[str, Any],
        start: Any,
        end: Any,
        seq: Any = None,
        model: str | None = None,
    ) -> None:
        self.model = model
        self.start_field = start_field
        self.end_field = end_field
        self.position = position
        self.seq = seq
        self.group = dict(group)
        self.start = start
        self.end = end
        message = (
            f"{_model_prefix(model)}Invalid interval: `{end_field}` {format_value(end)} is not "
            f"after `{start_field}` {format_value(start)} at {_format_position(position, seq)} "
            f"in group {_format_group(group)}. Every event needs {end_field} > {start_field}."
        )
        super().__init__(message)


class ChangedInputError(StreamWindowsError):
    """Rows a scheduled run's table was built from changed in place (corrected or
    deleted: same arrival positions, other values or fewer rows): the input partition's
    recorded row count or checksum no longer matches."""

    def __init__(
        self,
        *,
        function: str,
        time: str,
        partition: Any,
        rows_then: int,
        rows_now: int,
        arrival: str,
        processed_until: Any,
        model: str | None = None,
    ) -> None:
        self.model = model
        self.function = function
        self.partition = partition
        self.rows_then = rows_then
        self.rows_now = rows_now
        message = (
            f"{_model_prefix(model)}{function}(): the input's rows with {time} in the partition starting "
            f"{format_value(partition)} changed after this model processed them: {rows_then} row(s) with {arrival} "
            f"up to {format_value(processed_until)} then, {rows_now} now, and another checksum (a row corrected or "
            "deleted in place). A scheduled run of a Python model recomputes only from its latest time: rebuild "
            "the model with --full-refresh, or run it with late_rows='reprocess', which recomputes the whole table "
            "when its input changed."
        )
        super().__init__(message)
