"""The argument checks the engine's public functions share, in the same words: each
failure is an :class:`InvalidParameterError` naming the function, the parameter, the rule,
the value and the model (the house format of errors.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from streamwindows.errors import InvalidParameterError

__all__ = ["ParameterChecks"]


class ParameterChecks:
    """The checks of one call of ``function`` on an input with ``columns``. Building it
    checks ``model`` first: every later message names it."""

    def __init__(self, function: str, model: Any, columns: Iterable[Any]) -> None:
        if model is not None and not isinstance(model, str):
            raise InvalidParameterError(function, "model", "a string or None", model)
        self.function = function
        self.model = model
        self.columns = list(columns)

    def fail(self, parameter: str, rule: str, value: Any, note: str = "") -> InvalidParameterError:
        """The error to raise: ``parameter`` must follow ``rule`` and got ``value``."""
        return InvalidParameterError(self.function, parameter, rule, value, note=note, model=self.model)

    @property
    def available(self) -> str:
        return f"(available: {', '.join(map(str, self.columns))})"

    def column(self, parameter: str, value: Any, *, optional: bool = False) -> None:
        """``value`` names a column of the input (or is None, when ``optional``)."""
        if optional and value is None:
            return
        if not isinstance(value, str) or value not in self.columns:
            raise self.fail(parameter, f"a column of the input {self.available}" + (" or None" if optional else ""),
                            value)

    def group_by(self, group_by: Any, reserved: Sequence[str]) -> tuple[str, ...]:
        """``group_by`` (a column, a list of distinct columns not named like an output
        column in ``reserved``, or None) as a tuple."""
        if group_by is None:
            return ()
        if isinstance(group_by, str):
            group_by = (group_by,)
        if not isinstance(group_by, Sequence):
            raise self.fail("group_by", "a list of column names", group_by)
        group_by = tuple(group_by)
        for column in group_by:
            if not isinstance(column, str) or column not in self.columns:
                raise self.fail("group_by", f"columns of the input {self.available}", column)
            if column in reserved:
                rule = f"columns whose names are not reserved for the output ({', '.join(reserved)})"
                raise self.fail("group_by", rule, column)
        if len(set(group_by)) != len(group_by):
            raise self.fail("group_by", "a list of distinct columns", ", ".join(group_by))
        return group_by

    def flag(self, parameter: str, value: Any) -> None:
        """``value`` is True or False."""
        if not isinstance(value, (bool, np.bool_)):
            raise self.fail(parameter, "True or False", value)

    def count(self, parameter: str, value: Any, rule: str, *, optional: bool = False) -> None:
        """``value`` is an integer >= 1 (or None, when ``optional``); ``rule`` says so."""
        if optional and value is None:
            return
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
            raise self.fail(parameter, rule, value)
