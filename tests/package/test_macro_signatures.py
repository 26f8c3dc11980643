"""The public macros' calls as dbt sees them: each checks its arguments against exactly
the names it declares (the list `_sw_check_call` gets is the signature's), and each
dispatched macro has a `spark__` implementation and a `default__` that refuses other
adapters, both taking the arguments the dispatch passes. No Spark, no dbt: the macro
files are read as text."""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import PROJECT_DIR

MACROS = PROJECT_DIR / "macros"
DEFINITION = re.compile(r"\{% macro (\w+)\((.*?)\) %\}", re.S)
CHECK = re.compile(r"_sw_check_call\('(\w+)', (\[.*?\]), varargs, kwargs\)")


def _definitions() -> dict[str, tuple[list[str], str]]:
    """macro name -> (parameter names, body up to the next macro)."""
    found = {}
    for path in MACROS.rglob("*.sql"):
        text = path.read_text()
        matches = list(DEFINITION.finditer(text))
        for i, match in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            params = [p.split("=")[0].strip() for p in match.group(2).split(",") if p.strip()]
            found[match.group(1)] = (params, text[match.end():end])
    return found


DEFINITIONS = _definitions()
PUBLIC = sorted(name for name in DEFINITIONS if not name.startswith(("_", "default__", "spark__")))


def test_the_public_macros_are_the_documented_ones():
    assert PUBLIC == ["count_window_aggregate", "cumulate", "fenl_aggregate", "fenl_since", "fenl_sliding", "hop",
                      "merge_partial_aggregates", "partial_aggregate", "range_window_aggregate",
                      "rows_window_aggregate", "session_window_aggregate", "tumble", "window_top_n"]


@pytest.mark.parametrize("name", PUBLIC)
def test_a_public_macro_checks_its_call_against_its_signature(name):
    params, body = DEFINITIONS[name]
    check = CHECK.search(body)
    assert check, f"{name} does not check its call (_sw_check_call)"
    assert check.group(1) == name
    assert ast.literal_eval(check.group(2)) == params


@pytest.mark.parametrize("name", [n for n in PUBLIC if "adapter.dispatch" in DEFINITIONS[n][1]])
def test_a_dispatched_macro_has_a_spark_and_a_refusing_default_implementation(name):
    params, body = DEFINITIONS[name]
    assert f"adapter.dispatch('{name}', 'stream_windows')" in body
    spark_params, _ = DEFINITIONS[f"spark__{name}"]
    default_params, default_body = DEFINITIONS[f"default__{name}"]
    assert spark_params == default_params == params
    assert f"_sw_unsupported_adapter('{name}')" in default_body
