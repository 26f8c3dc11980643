"""The committed window pictures (docs/pictures/*.svg) are what the seeds draw today.

docs/pictures/draw_windows.py draws them from the seeds (and the pandas engine for the
examples without an expected seed). Here they are redrawn into a temporary folder and
compared byte for byte with the committed files: a seed (or a rule, or the engine)
that changed without `make pictures` fails this test. Fast, no Spark.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

PICTURES = PROJECT_DIR / "docs" / "pictures"


def _draw_windows():
    spec = importlib.util.spec_from_file_location("draw_windows", PICTURES / "draw_windows.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def redrawn(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pictures")
    _draw_windows().draw_all(out)
    return out


def _svgs(folder: Path) -> list[str]:
    """The pictures, their small copies, and the macro pages' inline ones (macro_pictures.md)."""
    return sorted(str(p.relative_to(folder))
                  for p in [*folder.glob("*.svg"), *folder.glob("small/*.svg"), *folder.glob("*.md")])


def test_every_picture_is_committed_and_none_is_stale(redrawn):
    assert _svgs(redrawn) == _svgs(PICTURES), "run `make pictures` and commit docs/pictures"


def test_committed_pictures_equal_a_redraw(redrawn):
    stale = [name for name in _svgs(redrawn)
             if (redrawn / name).read_bytes() != (PICTURES / name).read_bytes()]
    assert stale == [], f"stale pictures (run `make pictures`): {stale}"


def test_a_changed_seed_changes_its_picture(tmp_path, monkeypatch):
    """The check can fail: a seed with one value changed draws a different picture."""
    draw = _draw_windows()
    seeds = tmp_path / "seeds"
    (seeds / "expected").mkdir(parents=True)
    for csv in (draw.SEEDS / "expected").glob("*.csv"):
        (seeds / "expected" / csv.name).write_bytes(csv.read_bytes())
    events = (draw.SEEDS / "validity_events.csv").read_text()
    assert "\n1,0,5,1\n" in events
    (seeds / "validity_events.csv").write_text(events.replace("\n1,0,5,1\n", "\n1,0,5,9\n"))
    monkeypatch.setattr(draw, "SEEDS", seeds)
    monkeypatch.setattr(draw, "EXPECTED", seeds / "expected")
    import matplotlib

    with matplotlib.rc_context(draw.STYLE):
        draw.odysseus_interval_pieces(tmp_path)
    name = "odysseus_interval_pieces.svg"
    assert (tmp_path / name).read_bytes() != (PICTURES / name).read_bytes()


def test_pictures_are_small():
    sizes = {name: (PICTURES / name).stat().st_size for name in _svgs(PICTURES) if name.endswith(".svg")}
    assert max(sizes.values()) < 200_000, sizes
    # The inline copies go into every installing project's manifest (twice: the doc
    # blocks, and the macro descriptions that show them): SVG text keeps them a third.
    assert (PICTURES / "macro_pictures.md").stat().st_size < 400_000
