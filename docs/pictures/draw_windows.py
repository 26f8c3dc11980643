"""Timeline pictures of every window kind, drawn from the engines' worked examples.

Run `make pictures` (or `.venv/bin/python docs/pictures/draw_windows.py [--out DIR]`) to
redraw docs/pictures/*.svg, their small copies in docs/pictures/small/, and the doc
blocks of docs/pictures/macro_pictures.md (the macro pages' pictures inline). No Spark:
inputs are the seeds (seeds/*.csv), outputs the expected seeds (seeds/expected/*.csv);
windows that no expected seed holds are computed here from the rule (a few lines each)
or by the pandas engine `streamwindows`. tests/docs/test_pictures.py redraws into a
temporary folder and compares the bytes with the committed files, so a changed seed
fails the suite until the pictures are redrawn.

Every picture reads the same way: time (or the field) runs left to right, events are
dark dots, one lane per group; each window is a bar from its start to its end, filled
when it is final (emitted on close) and hatched with a dashed edge when it is not
(`is_final` false, drained, or still open at the end of the input). Triangles mark
where a window was emitted.

Output is deterministic: a fixed `svg.hashsalt`, no date in the metadata, glyphs drawn
as paths from matplotlib's own DejaVu Sans (checked below, so a system copy of the font
never changes the bytes).
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import matplotlib

matplotlib.use("svg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib import font_manager, transforms  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
EXPECTED = SEEDS / "expected"
PICTURES = REPO / "docs" / "pictures"
SMALL_DIR = "small"
SMALL_WIDTH_PT = 150.0
# The pictures on the package's macro pages, written inline into dbt doc blocks
# (`![<alt>]({{ doc('stream_windows_picture_<name>') }})` in macros/*.yml): dbt copies only the root
# project's asset-paths, so in a project that installs the package a picture file would
# not be there. Inline, its text is SVG text (not glyph paths), a third of the bytes.
# Which pictures: those the macros' YAML shows (read from it, not kept here).
MACRO_PICTURES_MD = "macro_pictures.md"
MACRO_PICTURES = sorted({match for path in (REPO / "macros").rglob("*.yml")
                         for match in re.findall(r"doc\('stream_windows_picture_(\w+)'\)", path.read_text())})

WIDTH_IN = 7.2
EVENT = "#222222"
WINDOW_EDGE = "#3A6EA5"
WINDOW_FILL = "#C9DAF0"
OPEN_EDGE = "#B5482F"
EMIT = "#B5482F"
INTERMEDIATE = "#D98A1F"
MUTED = "#9A9A9A"
GRID = "#E4E4E4"
HIGHLIGHT = "#2E8B57"

STYLE = {
    "svg.hashsalt": "stream_windows",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.edgecolor": "#777777",
    "axes.linewidth": 0.6,
    "xtick.color": "#444444",
    "ytick.color": "#333333",
    "xtick.major.size": 3,
    "ytick.major.size": 0,
    "hatch.linewidth": 0.6,
    "path.simplify": True,
    "lines.solid_capstyle": "butt",
}

LEGEND_FINAL = Patch(facecolor=WINDOW_FILL, edgecolor=WINDOW_EDGE, label="window, final")
LEGEND_OPEN = Patch(facecolor="white", edgecolor=OPEN_EDGE, hatch="////", linestyle="--",
                    label="not final (is_final false, drained, open)")
LEGEND_EVENT = Line2D([], [], marker="o", color=EVENT, linestyle="none", markersize=4, label="event")
LEGEND_EMIT = Line2D([], [], marker="v", color=EMIT, linestyle="none", markersize=5, label="emitted here")


# --- inputs ------------------------------------------------------------------------


def seed(name: str) -> pd.DataFrame:
    return pd.read_csv(SEEDS / f"{name}.csv")


def expected(name: str) -> pd.DataFrame:
    return pd.read_csv(EXPECTED / f"expected_results__{name}.csv")


def hours_since(values: pd.Series, base: str) -> pd.Series:
    return (pd.to_datetime(values) - pd.Timestamp(base)) / pd.Timedelta(hours=1)


def years_since(values: pd.Series, base_year: int) -> pd.Series:
    times = pd.to_datetime(values)
    start = pd.to_datetime(times.dt.year.astype(str) + "-01-01")
    end = pd.to_datetime((times.dt.year + 1).astype(str) + "-01-01")
    return times.dt.year - base_year + (times - start) / (end - start)


def fmt(value: float) -> str:
    """A number as a reader writes it: 7, 10.67, 2.2."""
    if value is None or pd.isna(value):
        return "NULL"
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


# --- drawing helpers ---------------------------------------------------------------


ROW_IN = 0.2  # height of one row of bars
TOP_IN, BOTTOM_IN, LEFT_IN, RIGHT_IN, GAP_IN = 0.35, 0.45, 1.25, 0.15, 0.55


def set_title(fig, text: str) -> None:
    """The picture's title, from the figure's left edge (room for the longer ones)."""
    height = fig.get_figheight()
    fig.suptitle(text, x=0.01, y=1 - 0.06 / height, ha="left", va="top", fontsize=9, fontweight="bold")


def _clean(ax) -> None:
    ax.grid(axis="x", color=GRID, linewidth=0.5)
    ax.set_axisbelow(True)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)


def figure(rows: float, *, panels: int = 1, title: str | None = None, subtitle: str | None = None,
           width: float = WIDTH_IN):
    """One row of `panels` axes, `rows` bar rows high; `title` (and `subtitle`) over them all."""
    top = TOP_IN + (0.3 if title else 0) + (0.2 if subtitle else 0)
    height = top + BOTTOM_IN + ROW_IN * rows
    fig, axes = plt.subplots(1, panels, figsize=(width, height), sharey=True, squeeze=False)
    fig.subplots_adjust(left=LEFT_IN / width, right=1 - RIGHT_IN / width, top=1 - top / height,
                        bottom=BOTTOM_IN / height, wspace=0.08)
    if title:
        set_title(fig, title)
    if subtitle:
        fig.text(0.01, 1 - 0.26 / height, subtitle, ha="left", va="top", fontsize=7, color="#555555")
    for ax in axes[0]:
        _clean(ax)
    return fig, list(axes[0])


def stacked_figure(row_counts: list[float], *, title: str | None = None, width: float = WIDTH_IN):
    """Axes one above the other sharing the x axis, each as high as its rows."""
    top = TOP_IN + (0.3 if title else 0)
    height = top + BOTTOM_IN + ROW_IN * sum(row_counts) + GAP_IN * (len(row_counts) - 1)
    fig, axes = plt.subplots(len(row_counts), 1, figsize=(width, height), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": row_counts})
    mean_rows = sum(row_counts) / len(row_counts)
    fig.subplots_adjust(left=LEFT_IN / width, right=1 - RIGHT_IN / width, top=1 - top / height,
                        bottom=BOTTOM_IN / height, hspace=GAP_IN / (ROW_IN * mean_rows))
    if title:
        set_title(fig, title)
    for ax in axes[:, 0]:
        _clean(ax)
    return fig, list(axes[:, 0])


def rows_axis(ax, labels: list[str], *, top_pad: float = 0.7, bottom_pad: float = 0.7) -> None:
    """Row i at y = i, top to bottom, labelled on the left."""
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 1 + bottom_pad, -top_pad)


def window_bar(ax, y: float, start: float, end: float, *, final: bool = True, height: float = 0.56,
               min_width: float = 0.0, color: str = WINDOW_EDGE, fill: str = WINDOW_FILL) -> None:
    width = end - start
    if width < min_width:
        start, width = start - (min_width - width) / 2, min_width
    if final:
        patch = Rectangle((start, y - height / 2), width, height, facecolor=fill, edgecolor=color, linewidth=0.9)
    else:
        patch = Rectangle((start, y - height / 2), width, height, facecolor="white", edgecolor=OPEN_EDGE,
                          hatch="////", linestyle="--", linewidth=0.9)
    ax.add_patch(patch)


def ghost_bar(ax, y: float, start: float, end: float, *, height: float = 0.56) -> None:
    ax.add_patch(Rectangle((start, y - height / 2), end - start, height, facecolor="none", edgecolor=MUTED,
                           linestyle=":", linewidth=0.8))


def dots(ax, xs: Iterable[float], ys: Iterable[float], *, color: str = EVENT, hollow: bool = False,
         size: float = 3.6, zorder: int = 4) -> None:
    ax.plot(list(xs), list(ys), linestyle="none", marker="o", markersize=size,
            markerfacecolor="white" if hollow else color, markeredgecolor=color, markeredgewidth=0.9,
            zorder=zorder)


def emit_mark(ax, x: float, y: float, *, color: str = EMIT, height: float = 0.56) -> None:
    ax.plot([x], [y - height / 2 - 0.08], linestyle="none", marker="v", markersize=5, color=color, zorder=5)


def note(ax, x: float, y: float, text: str, *, color: str = "#333333", ha: str = "left", size: float = 7,
         va: str = "center", **kwargs) -> None:
    ax.text(x, y, text, ha=ha, va=va, fontsize=size, color=color, **kwargs)


def legend(fig, handles: list, *, ncol: int | None = None, below: float = 34) -> None:
    """One row of legend `below` points under the last axes' bottom edge."""
    ax = fig.axes[-1]
    anchor = transforms.offset_copy(ax.transAxes, fig=fig, y=-below, units="points")
    ax.legend(handles=handles, loc="upper center", ncol=ncol or len(handles), frameon=False, fontsize=7,
              bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, handlelength=1.6, columnspacing=1.4,
              borderaxespad=0)


def lane_separators(ax, boundaries: list[float], names: list[tuple[float, str]], *, gap: float = 36) -> None:
    """Lines between lanes, and each lane's name `gap` points left of the axis."""
    for y in boundaries:
        ax.axhline(y, color="#BBBBBB", linewidth=0.6, zorder=1)
    for y, name in names:
        ax.annotate(name, xy=(0, y), xycoords=("axes fraction", "data"), xytext=(-gap, 0),
                    textcoords="offset points", ha="right", va="center", fontsize=8, fontweight="bold",
                    color="#222222")


def hour_ticks(ax, start: float, stop: float, step: float, label: Callable[[float], str]) -> None:
    ticks = []
    value = start
    while value <= stop + 1e-9:
        ticks.append(value)
        value += step
    ax.set_xticks(ticks, [label(t) for t in ticks])


def clock(base: str) -> Callable[[float], str]:
    origin = pd.Timestamp(base)

    def label(hours: float) -> str:
        moment = origin + pd.Timedelta(hours=hours)
        return moment.strftime("%b %-d\n%H:%M") if moment.hour == 0 else moment.strftime("%H:%M")

    return label


# --- SQLstream -----------------------------------------------------------------------


WEATHER_BASE = "2018-11-01 00:00:00"


def _weather() -> pd.DataFrame:
    frame = seed("weather")
    frame["t"] = hours_since(frame["rowtime"], WEATHER_BASE)
    return frame


def _range_members(frame: pd.DataFrame, row, hours: float, ties: str, by: str | None = None) -> pd.DataFrame:
    """RANGE `hours` PRECEDING: rows with time in [t - x, t], of the row's partition;
    `arrival`: that arrived at or before it; `peers`: every row of equal time too."""
    inside = frame[(frame["t"] >= row.t - hours) & (frame["t"] <= row.t)]
    if by:
        inside = inside[inside[by] == getattr(row, by)]
    if ties == "arrival":
        inside = inside[inside["seq"] <= row.seq]
    return inside


def sqlstream_range_ties(out: Path) -> None:
    frame = _weather()
    first = frame.head(5)
    seeded = expected("weather_minmax_24h").set_index("seq")
    fig, axes = figure(len(first) + 1, panels=2,
                       title="SQLstream RANGE INTERVAL '1' DAY PRECEDING: the weather example's first rows",
                       subtitle="Each bar is a row's window [t - 1 day, t], cut at the left (it starts the day "
                                "before); dots: the rows in it; right: MIN/MAX.")
    labels = [f"seq {r.seq}  {r.city} {r.temp}" for r in first.itertuples()]
    for ax, ties in zip(axes, ("arrival", "peers"), strict=True):
        for y, row in enumerate(first.itertuples()):
            members = _range_members(first, row, 24, ties)
            window_bar(ax, y, row.t - 24, row.t)
            # equal times are stacked in arrival order, so a tie reads top to bottom
            tied = {}
            for member in members.itertuples():
                offset = tied.setdefault(member.t, [])
                dy = -0.13 + 0.26 * len(offset)
                offset.append(member.seq)
                dots(ax, [member.t], [y + dy], size=3.2)
                note(ax, member.t - 0.4, y + dy, str(member.temp), ha="right", size=6)
            if ties == "arrival":
                later = first[(first["t"] == row.t) & (first["seq"] > row.seq)]
                for member in later.itertuples():
                    dots(ax, [member.t], [y + 0.13], color=MUTED, hollow=True, size=3.2)
                    note(ax, member.t + 0.5, y + 0.16, f"{member.temp} arrives later: out", color=MUTED,
                         size=6)
            low, high = members["temp"].min(), members["temp"].max()
            if ties == "arrival":
                assert (low, high) == (seeded.loc[row.seq, "wmin_temp"], seeded.loc[row.seq, "wmax_temp"])
            note(ax, 10.2, y, f"{low}/{high}", fontweight="bold")
        title = ("ties='arrival' (default): 29/29 then 2/29" if ties == "arrival"
                 else "ties='peers' (SQL standard): 2/29 twice")
        ax.set_title(title, fontsize=8)
        ax.set_xlim(-3, 12.5)
        hour_ticks(ax, 0, 9, 3, clock(WEATHER_BASE))
        note(ax, 10.2, -0.75, "min/max", color="#555555", size=6.5)
    rows_axis(axes[0], labels)
    legend(fig, [LEGEND_FINAL, LEGEND_EVENT,
                 Line2D([], [], marker="o", markerfacecolor="white", color=MUTED, linestyle="none",
                        markersize=4, label="equal time, arrives later")])
    save(fig, out, "sqlstream_range_ties")


def _per_row_lanes(frame: pd.DataFrame, by: str) -> tuple[list, list[str], list[float], list[tuple[float, str]]]:
    """Rows grouped into lanes by `by` (lanes in order of first arrival, rows by arrival)."""
    order = list(dict.fromkeys(frame[by]))
    placed, labels, separators, names = [], [], [], []
    y = 0
    for lane in order:
        rows = frame[frame[by] == lane]
        names.append((y + (len(rows) - 1) / 2, lane))
        for row in rows.itertuples():
            placed.append((y, row))
            labels.append(f"seq {row.seq}")
            y += 1
        separators.append(y - 0.5)
    return placed, labels, separators[:-1], names


def sqlstream_range_partitioned(out: Path) -> None:
    frame = _weather()
    seeded = expected("weather_city_stats_24h").set_index("seq")
    placed, labels, separators, names = _per_row_lanes(frame, "city")
    fig, (ax,) = figure(len(placed) + 1)
    for y, row in placed:
        members = _range_members(frame, row, 24, "arrival", by="city")
        window_bar(ax, y, row.t - 24, row.t)
        dots(ax, members["t"], [y] * len(members), size=3)
        expect = seeded.loc[row.seq]
        assert (members["temp"].min(), members["temp"].max()) == (expect.wmin_temp, expect.wmax_temp)
        assert int(members["temp"].mean()) == expect.wavg_temp  # INTEGER AVG, truncated
        note(ax, row.t + 0.8, y, f"{row.temp}: min {expect.wmin_temp} max {expect.wmax_temp} avg {expect.wavg_temp}",
             size=6.5)
    rows_axis(ax, labels)
    lane_separators(ax, separators, names)
    ax.tick_params(axis="y", pad=2, labelsize=6.5)
    ax.set_xlim(-24, 66)
    hour_ticks(ax, -24, 48, 12, clock(WEATHER_BASE))
    set_title(fig, "SQLstream PARTITION BY city RANGE INTERVAL '1' DAY PRECEDING (weather example, second table)")
    legend(fig, [LEGEND_FINAL, LEGEND_EVENT])
    save(fig, out, "sqlstream_range_partitioned")


def sqlstream_rows(out: Path) -> None:
    frame = _weather()
    n = 2
    placed, labels, separators, names = _per_row_lanes(frame, "city")
    fig, (ax,) = figure(len(placed) + 1)
    for y, row in placed:
        city = frame[(frame["city"] == row.city) & (frame["seq"] <= row.seq)]
        members = city.tail(n + 1)
        window_bar(ax, y, members["t"].min(), row.t, min_width=0.6)
        dots(ax, members["t"], [y] * len(members), size=3)
        span = fmt(row.t - members["t"].min())
        note(ax, row.t + 0.8, y, f"{len(members)} row{'s' if len(members) > 1 else ''}, over {span} h", size=6.5)
    rows_axis(ax, labels)
    lane_separators(ax, separators, names)
    ax.tick_params(axis="y", pad=2, labelsize=6.5)
    ax.set_xlim(-2, 66)
    hour_ticks(ax, 0, 48, 12, clock(WEATHER_BASE))
    set_title(fig, "SQLstream PARTITION BY city ROWS 2 PRECEDING: the row and the 2 that arrived before it "
                 "(weather example)")
    legend(fig, [LEGEND_FINAL, LEGEND_EVENT])
    save(fig, out, "sqlstream_rows")


TRADES_BASE = "2024-01-01 00:00:00"


def sqlstream_range_following(out: Path) -> None:
    frame = seed("ticker_trades")
    frame["t"] = hours_since(frame["rowtime"], TRADES_BASE)
    data = frame[~frame["is_bound"]]
    bounds = frame[frame["is_bound"]]
    seeded = expected("ticker_hourly_volume").set_index("seq")
    stream_end = frame["t"].max()
    fig, axes = stacked_figure([len(data) + 1, len(data) + 1],
                               title="SQLstream RANGE PRECEDING and FOLLOWING over the Trades example")
    placed, labels, separators, names = _per_row_lanes(data, "ticker")
    for ax, direction in zip(axes, ("preceding", "following"), strict=True):
        for bound in bounds.itertuples():
            ax.axvline(bound.t, color=MUTED, linestyle="--", linewidth=0.8, zorder=1)
            note(ax, bound.t, -0.95, "bound", color=MUTED, ha="center", size=6)
        for y, row in placed:
            same = data[data["ticker"] == row.ticker]
            if direction == "preceding":
                members = same[(same["t"] >= row.t - 1) & (same["t"] <= row.t) & (same["seq"] <= row.seq)]
                total = members["amount"].sum()
                assert total == seeded.loc[row.seq, "hourly_volume"]
                window_bar(ax, y, row.t - 1, row.t)
                text = f"{int(row.amount)}: sum {fmt(total)}"
            else:
                members = same[(same["t"] >= row.t) & (same["t"] <= row.t + 1) & (same["seq"] >= row.seq)]
                total = members["amount"].sum()
                final = stream_end > row.t + 1
                window_bar(ax, y, row.t, row.t + 1, final=final)
                text = f"{int(row.amount)}: sum {fmt(total)}, is_final {str(final).lower()}"
            dots(ax, members["t"], [y] * len(members), size=3.4)
            x_text = row.t + 0.04 if direction == "preceding" else row.t + 1.04
            note(ax, x_text, y, text, size=6.5)
        rows_axis(ax, labels, top_pad=1.2)
        lane_separators(ax, separators, names)
        ax.tick_params(axis="y", labelsize=6.5)
    axes[1].axvline(stream_end, color=EMIT, linewidth=0.8, zorder=1)
    note(axes[1], stream_end + 0.14, -0.95, "the stream is at 11:10", color=EMIT, size=6)
    axes[0].set_title("PARTITION BY ticker RANGE INTERVAL '1' HOUR PRECEDING (bounds pass through)")
    axes[1].set_title("... FOLLOWING: is_final once the stream is past t + 1 hour")
    axes[1].set_xlim(9, 13.1)
    hour_ticks(axes[1], 9, 13, 0.5, clock(TRADES_BASE))
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EVENT,
                 Line2D([], [], color=MUTED, linestyle="--", label="rowtime bound")])
    save(fig, out, "sqlstream_range_following")


# --- StreamBase ------------------------------------------------------------------------


def _engine_field(frame: pd.DataFrame, **kwargs) -> pd.DataFrame:
    from streamwindows import field_dimension_aggregate

    return field_dimension_aggregate(frame, **kwargs)


def _trades() -> pd.DataFrame:
    return seed("trades")


def _windows_by_lane(windows: pd.DataFrame, lanes: list[str], by: str | None):
    """y rows: per lane, one row of events, then as many rows as it has overlapping
    windows (a window goes to the first row free at its start). Returns the events' row
    per lane, {(lane, start): row}, the labels, the lane separators and names."""
    lane_y, rows_of, labels, separators, names = {}, {}, [], [], []
    y0 = 0
    for lane in lanes:
        lane_y[lane] = y0
        mine = windows if by is None else windows[windows[by] == lane]
        ends: list[float] = []
        for start, end in sorted(set(zip(mine["window_start"], mine["window_end"], strict=True))):
            for i, free_from in enumerate(ends):
                if free_from <= start:
                    ends[i] = end
                    rows_of[(lane, start)] = y0 + 1 + i
                    break
            else:
                ends.append(end)
                rows_of[(lane, start)] = y0 + len(ends)
        height = 1 + max(len(ends), 1)
        labels += ["events"] + [""] * (height - 1)
        names.append((y0 + height / 2, lane))
        y0 += height
        separators.append(y0 - 0.5)
    return lane_y, rows_of, labels, separators[:-1], names


def _draw_field_windows(ax, events: pd.DataFrame, windows: pd.DataFrame, *, field: str, by: str | None,
                        value: str | None, lanes: list[str], points_every: float | None = None,
                        label: Callable | None = None, inside: bool = False) -> None:
    lane_y, rows_of, labels, separators, names = _windows_by_lane(windows, lanes, by)
    for lane in lanes:
        mine = events if by is None else events[events[by] == lane]
        dots(ax, mine[field], [lane_y[lane]] * len(mine))
        if value:
            for event in mine.itertuples():
                note(ax, getattr(event, field), lane_y[lane] - 0.42, fmt(getattr(event, value)), ha="center",
                     size=6)
    keys = windows[by] if by else pd.Series([lanes[0]] * len(windows), index=windows.index)
    for (lane, start), group in windows.groupby([keys, windows["window_start"]], sort=False):
        y = rows_of[(lane, start)]
        end = group["window_end"].iloc[0]
        window_bar(ax, y, start, end, final="close" in set(group["emit_kind"]))
        if points_every:
            point = start + points_every
            while point < end - 1e-9:
                ax.plot([point, point], [y - 0.28, y + 0.28], color=INTERMEDIATE, linewidth=0.9, zorder=3)
                point += points_every
        for at, rows in group[group["emit_kind"] == "intermediate"].groupby("emitted_at", sort=True):
            emit_mark(ax, at, y, color=INTERMEDIATE)
            if len(rows) > 1:
                note(ax, at + 0.9, y - 0.42, f"x{len(rows)}", color=INTERMEDIATE, size=6, fontweight="bold")
        for row in group[group["emit_kind"] == "close"].itertuples():
            emit_mark(ax, row.emitted_at, y)
        if label and inside:
            note(ax, (start + end) / 2, y, label(group.iloc[-1]), size=6.5, ha="center")
        elif label:
            note(ax, end + 0.4, y, label(group.iloc[-1]), size=6.5)
    rows_axis(ax, labels, top_pad=0.9)
    lane_separators(ax, separators, names)


def streambase_tumbling(out: Path) -> None:
    trades = _trades()
    windows = _engine_field(trades, field="time", size=30, advance=30, group_by=["symbol"],
                            aggregates={"total_volume": "sum(volume)"}, seq="seq", drain=True)
    closes = windows[windows["emit_kind"] == "close"].reset_index(drop=True)
    seeded = expected("trade_volume_30s")
    pd.testing.assert_frame_equal(closes[seeded.columns].astype(str), seeded.astype(str), check_dtype=False)
    fig, (ax,) = figure(6)
    _draw_field_windows(ax, trades, windows, field="time", by="symbol", value="volume", lanes=["AMAT", "INTC"],
                        inside=True,
                        label=lambda w: (f"close at {fmt(w.emitted_at)}: {w.row_count} tuples, {fmt(w.total_volume)}"
                                         if w.emit_kind == "close" else "open at the end: not emitted"))
    note(ax, 67, 2.55, "AMAT's 65 closes INTC's [30, 60) too", color=EMIT, size=6.5)
    ax.set_xlim(-2, 112)
    ax.set_xticks(range(0, 100, 10))
    set_title(fig, "StreamBase field dimension, tumbling: size 30, advance 30, per symbol (trade_volume_30s)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EVENT, LEGEND_EMIT])
    save(fig, out, "streambase_tumbling")


def streambase_hopping_offset(out: Path) -> None:
    trades = _trades()
    windows = _engine_field(trades, field="time", size=30, advance=10, offset=5, group_by=["symbol"],
                            aggregates={"total_volume": "sum(volume)"}, seq="seq", drain=True)
    fig, (ax,) = figure(12)
    _draw_field_windows(ax, trades, windows, field="time", by="symbol", value="volume", lanes=["AMAT", "INTC"],
                        inside=True, label=lambda w: f"{w.emit_kind} {fmt(w.total_volume)}")
    ax.set_xlim(0, 112)
    ax.set_xticks(range(5, 100, 10))
    set_title(fig, "StreamBase field dimension, hopping: size 30, advance 10, offset 5 (starts 5, 15, 25 ...)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EVENT, LEGEND_EMIT])
    save(fig, out, "streambase_hopping_offset")


def streambase_emit_every(out: Path) -> None:
    trades = _trades()
    windows = _engine_field(trades, field="time", size=30, advance=30, emit_every=10, group_by=["symbol"],
                            aggregates={"total_volume": "sum(volume)"}, seq="seq", drain=True)
    fig, (ax,) = figure(6)
    _draw_field_windows(ax, trades, windows, field="time", by="symbol", value="volume", lanes=["AMAT", "INTC"],
                        points_every=10, inside=True,
                        label=lambda w: f"{w.emit_kind} {fmt(w.total_volume)}")
    ax.set_xlim(-2, 112)
    ax.set_xticks(range(0, 100, 10))
    set_title(fig, "StreamBase field dimension, emit_every 10: intermediate rows at the points s + 10k "
                 "(size 30, advance 30)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EMIT,
                 Line2D([], [], marker="v", color=INTERMEDIATE, linestyle="none", markersize=5,
                        label="intermediate row(s) emitted"),
                 Line2D([], [], color=INTERMEDIATE, linewidth=0.9, label="point s + 10k")])
    save(fig, out, "streambase_emit_every")


def streambase_opening_none(out: Path) -> None:
    trades = _trades()
    fig, axes = stacked_figure([6, 6], title="StreamBase field dimension, size 30 over the Trades sample")
    for ax, opening in zip(axes, ("advance", "none"), strict=True):
        windows = _engine_field(trades, field="time", size=30, opening=opening, group_by=["symbol"],
                                aggregates={"total_volume": "sum(volume)"}, seq="seq", drain=True)
        _draw_field_windows(ax, trades, windows, field="time", by="symbol", value="volume", lanes=["AMAT", "INTC"],
                            inside=True, label=lambda w: f"{w.emit_kind} {fmt(w.total_volume)}")
        ax.set_title(f"opening='{opening}'" + (": windows on the grid 0, 30, 60 ..." if opening == "advance"
                                                else ": a window opens at the tuple itself when its group has none"))
    axes[1].set_xlim(-2, 112)
    axes[1].set_xticks(range(0, 100, 10))
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EVENT, LEGEND_EMIT])
    save(fig, out, "streambase_opening_none")


def streambase_field_jump(out: Path) -> None:
    readings = seed("field_jump_readings")
    windows = expected("field_jump_windows")
    fig, (ax,) = figure(3)
    dots(ax, readings["reading_value"], [0] * len(readings))
    for r in readings.itertuples():
        note(ax, r.reading_value, -0.42, fmt(r.reading_value), ha="center", size=6.5)
    for start in range(1, 9):
        ghost_bar(ax, 1, start, start + 1)
    note(ax, 5, 0.45, "[1, 2) ... [8, 9): would hold no tuple, never opened", color=MUTED, ha="center", size=6.5)
    for w in windows.itertuples():
        window_bar(ax, 1, w.window_start, w.window_end, final=w.emit_kind == "close")
        if w.emit_kind == "close":
            note(ax, w.window_start + 0.5, 0.45, f"close, emitted at {fmt(w.emitted_at)}", ha="center", size=6.5,
                 color=WINDOW_EDGE)
        else:
            note(ax, w.window_end + 0.1, 1, "drain (open at the end)", size=6.5)
    rows_axis(ax, ["readings", "windows"])
    ax.set_xlim(-0.3, 12.2)
    ax.set_xticks(range(0, 11))
    set_title(fig, "StreamBase field dimension, size = advance = 1 over 0 then 9.2 (field_jump_windows)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, Patch(facecolor="none", edgecolor=MUTED, linestyle=":",
                                                  label="never opened")])
    save(fig, out, "streambase_field_jump")


def streambase_optional_windows(out: Path) -> None:
    days = seed("seattle_daily_weather").head(10)
    fig, axes = stacked_figure([4, 10], title="StreamBase weekly averages: field day, size 7, advance 1 "
                               "(the first 10 days of Seattle 2012)")
    for ax, optional in zip(axes, ("single", "all"), strict=True):
        windows = _engine_field(days, field="day_number", size=7, advance=1, group_by=["city"],
                                optional_windows=optional, aggregates={"avg_temp_c_avg": "avg(avg_temp_c)"},
                                seq="seq")
        starts = list(windows["window_start"])
        dots(ax, days["day_number"], [0] * len(days))
        for y, w in enumerate(windows.itertuples(), start=1):
            window_bar(ax, y, w.window_start, w.window_end)
            emit_mark(ax, w.emitted_at, y)
            note(ax, w.window_end + 0.2, y, f"StartDay {w.window_start}, NumDays {w.row_count}, emitted on day "
                 f"{w.emitted_at}", size=6.5)
        rows_axis(ax, ["days"] + [""] * len(starts))
        ax.set_title(f"optional_windows='{optional}'" + (
            ": the first window opens on day 1 and emits full, on day 8" if optional == "single"
            else ": day 1 opens the 7 windows holding it; emissions from day 2"))
    axes[1].set_xlim(-6, 19.5)
    axes[1].set_xticks(range(-5, 12))
    legend(fig, [LEGEND_FINAL, LEGEND_EVENT, LEGEND_EMIT])
    save(fig, out, "streambase_optional_windows")


# --- StreamInsight ----------------------------------------------------------------------


def _stacked_events(ax, events: pd.DataFrame, time: str, name: str, y: float) -> None:
    seen: dict[float, int] = {}
    for event in events.itertuples():
        t = getattr(event, time)
        k = seen.get(t, 0)
        seen[t] = k + 1
        dots(ax, [t], [y - 0.25 * k])
        note(ax, t + 0.08, y - 0.25 * k, getattr(event, name), size=6.5)


def streaminsight_count_points(out: Path) -> None:
    events = seed("point_events")
    windows = expected("point_events_count_window_2")
    fig, (ax,) = figure(6)
    _stacked_events(ax, events, "start_time", "event_name", 0.1)
    for t in sorted(set(events["start_time"])):
        ax.axvline(t, color=GRID, linewidth=0.8, linestyle="--", zorder=0)
    for y, w in enumerate(windows.itertuples(), start=1):
        window_bar(ax, y + 0.3, w.window_start, w.window_end, final=bool(w.is_final))
        emit_mark(ax, w.point_at, y + 0.3)
        note(ax, w.window_end + 0.1, y + 0.3,
             f"point_at {w.point_at}: {w.first_event}..{w.last_event}, {w.event_count} events, sum {w.reading_sum}"
             + ("" if w.is_final else ", is_final false"), size=6.5)
    rows_axis(ax, ["events", "window 1", "window 2", "window 3"], top_pad=0.9)
    ax.set_yticks([0, 1.3, 2.3, 3.3], ["events", "window 1", "window 2", "window 3"])
    ax.set_ylim(3.9, -0.9)
    ax.set_xlim(0.5, 10.5)
    ax.set_xticks(range(1, 8))
    set_title(fig, "StreamInsight count window over N = 2 distinct start times (b and c share 2): "
                   "[t_k, t_k+1 + 1 tick)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, LEGEND_EVENT,
                 Line2D([], [], marker="v", color=EMIT, linestyle="none", markersize=5, label="output point")])
    save(fig, out, "streaminsight_count_points")


def streaminsight_count_intervals(out: Path) -> None:
    events = seed("interval_events")
    windows = expected("interval_events_count_window_2_twa")
    fig, (ax,) = figure(7)
    for y, e in enumerate(events.itertuples()):
        ax.plot([e.start_time, e.end_time], [y, y], color=EVENT, linewidth=2.2, solid_capstyle="butt")
        dots(ax, [e.start_time], [y])
        note(ax, e.end_time + 0.1, y, f"{e.event_name} [{e.start_time}, {e.end_time}) reading {fmt(e.reading)}",
             size=6.5)
    base = len(events) + 0.2
    for k, w in enumerate(windows.itertuples()):
        y = base + 1.4 * k
        window_bar(ax, y, w.window_start, w.window_end, final=bool(w.is_final), height=0.9)
        members = events[(events["start_time"] >= w.window_start) & (events["start_time"] <= w.point_at)]
        for i, e in enumerate(members.itertuples()):
            lo, hi = max(e.start_time, w.window_start), min(e.end_time, w.window_end)
            yy = y - 0.22 + 0.44 * i
            ax.plot([lo, hi], [yy, yy], color=HIGHLIGHT, linewidth=2.2, solid_capstyle="butt", zorder=4)
            note(ax, hi + 0.05, yy, f"{e.event_name}: {fmt(hi - lo)} long", color=HIGHLIGHT, size=6)
        emit_mark(ax, w.point_at, y, height=0.9)
        note(ax, w.window_end + 1.2, y, f"twa {fmt(w.twa_reading)}" + ("" if w.is_final else ", is_final false"),
             size=6.5, fontweight="bold")
    labels = list(events["event_name"]) + [f"window {k + 1}" for k in range(len(windows))]
    ax.set_yticks(list(range(len(events))) + [base + 1.4 * k for k in range(len(windows))], labels)
    ax.set_ylim(base + 1.4 * (len(windows) - 1) + 0.9, -0.8)
    ax.set_xlim(0.5, 11.5)
    ax.set_xticks(range(1, 10))
    set_title(fig, "StreamInsight count window N = 2 over interval events: lifetimes clipped to the window")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN,
                 Line2D([], [], color=EVENT, linewidth=2.2, label="event lifetime"),
                 Line2D([], [], color=HIGHLIGHT, linewidth=2.2, label="clipped lifetime")])
    save(fig, out, "streaminsight_count_intervals")


# --- Kaskada Fenl ---------------------------------------------------------------------


def _purchases() -> pd.DataFrame:
    frame = seed("purchases")
    frame["t"] = years_since(frame["time"], 2012) + 2012
    return frame


def _fenl_rows(out: Path, name: str, title: str, windows: list[tuple[float | None, float, str]],
               marks: list[list[float]], highlight: list[int] | None = None) -> None:
    frame = _purchases()
    fig, (ax,) = figure(len(frame) + 1.5)
    dots(ax, frame["t"], [0] * len(frame))
    for r in frame.itertuples():
        note(ax, r.t, -0.45, f"{r.amount}", ha="center", size=6.5)
    for i in highlight or []:
        ax.plot([frame["t"].iloc[i]], [0], marker="*", markersize=9, color=INTERMEDIATE, zorder=5,
                linestyle="none")
    for y, ((start, end, text), members) in enumerate(zip(windows, marks, strict=True), start=1):
        if start is None:
            ghost_bar(ax, y, frame["t"].iloc[0], end)
        else:
            window_bar(ax, y, start, end, min_width=0.06)
            dots(ax, members, [y] * len(members), size=3.2)
        note(ax, end + 0.12, y, text, size=6.5)
    rows_axis(ax, ["purchases"] + [f"seq {s}" for s in frame["seq"]], top_pad=0.9)
    ax.set_xlim(2011.8, 2022.6)
    ax.set_xticks(range(2012, 2021))
    set_title(fig, title)
    handles = [LEGEND_FINAL, LEGEND_EVENT]
    if any(w[0] is None for w in windows):
        handles.append(Patch(facecolor="none", edgecolor=MUTED, linestyle=":", label="NULL: too few rows"))
    if highlight:
        handles.append(Line2D([], [], marker="*", color=INTERMEDIATE, linestyle="none", markersize=8,
                              label="predicate true"))
    legend(fig, handles)
    save(fig, out, name)


def fenl_cumulative(out: Path) -> None:
    frame = _purchases()
    sums = expected("purchase_amount_sum_cumulative").set_index("seq")["amount_sum"]
    means = expected("purchase_amount_sum_then_mean").set_index("seq")["amount_sum_mean"]
    windows, marks = [], []
    for i, r in enumerate(frame.itertuples()):
        assert frame["amount"].iloc[: i + 1].sum() == sums[r.seq]
        windows.append((frame["t"].iloc[0], r.t, f"sum() {fmt(sums[r.seq])}, sum() | mean() {fmt(means[r.seq])}"))
        marks.append(list(frame["t"].iloc[: i + 1]))
    _fenl_rows(out, "fenl_cumulative", "Fenl cumulative (default window): Purchase.amount | sum(), per entity",
               windows, marks)


def fenl_sliding(out: Path) -> None:
    frame = _purchases()
    seeded = expected("purchase_amount_sum_last_2_valid").set_index("seq")["amount_sum_last_2_valid"]
    windows, marks = [], []
    for i, r in enumerate(frame.itertuples()):
        valid = frame.iloc[: i + 1]
        valid = valid[valid["is_valid"]].tail(2)
        if len(valid) < 2:
            assert pd.isna(seeded[r.seq])
            windows.append((None, r.t, "NULL (fewer than 2 valid purchases)"))
            marks.append([])
        else:
            assert valid["amount"].sum() == seeded[r.seq]
            windows.append((valid["t"].iloc[0], r.t, f"sum {fmt(seeded[r.seq])}"))
            marks.append(list(valid["t"]))
    _fenl_rows(out, "fenl_sliding", "Fenl sum(amount, window = sliding(2, is_valid)): the 2 latest valid purchases",
               windows, marks)


def fenl_since(out: Path) -> None:
    frame = _purchases()
    predicate_row = 1  # docs/semantics.md's illustration: the predicate holds on the second row
    windows, marks, start = [], [], 0
    for i, r in enumerate(frame.itertuples()):
        members = frame.iloc[start: i + 1]
        text = f"sum {fmt(members['amount'].sum())}" + (": the predicate closes the window" if i == predicate_row
                                                        else "")
        windows.append((members["t"].iloc[0], r.t, text))
        marks.append(list(members["t"]))
        if i == predicate_row:
            start = i + 1
    assert [w[2].split()[1].rstrip(":") for w in windows] == ["5", "7", "13", "17"]
    _fenl_rows(out, "fenl_since", "Fenl sum(amount, window = since(pred)), pred true on the second purchase",
               windows, marks, highlight=[predicate_row])


def fenl_cron(out: Path) -> None:
    frame = _purchases()
    years = expected("purchase_amount_sum_yearly")
    years["start"] = years_since(years["period_start"], 2012) + 2012
    years["end"] = years_since(years["period_end"], 2012) + 2012
    fig, (ax,) = figure(4)
    dots(ax, frame["t"], [0] * len(frame))
    for r in frame.itertuples():
        note(ax, r.t, -0.45, f"{r.amount}", ha="center", size=6.5)
    for w in years.itertuples():
        empty = w.purchases_yearly == 0
        if empty:
            ghost_bar(ax, 1.2, w.start + 0.02, w.end - 0.02, height=0.8)
        else:
            window_bar(ax, 1.2, w.start + 0.02, w.end - 0.02, height=0.8)
        emit_mark(ax, w.end, 1.2, height=0.8)
        note(ax, (w.start + w.end) / 2, 1.2, f"{fmt(w.amount_sum_yearly)}", ha="center", size=7,
             fontweight="bold", color=MUTED if empty else "#222222")
        rows = f"{w.purchases_yearly} row" + ("" if w.purchases_yearly == 1 else "s")
        note(ax, (w.start + w.end) / 2, 1.95, rows, ha="center", size=6,
             color=MUTED if empty else "#444444")
    ax.set_yticks([0, 1.2], ["purchases", "since(yearly())"])
    ax.set_ylim(2.4, -0.9)
    ax.set_xlim(2011.8, 2020.4)
    ax.set_xticks(range(2012, 2021))
    set_title(fig, "Fenl sum(amount, window = since(yearly())): one row per year at its end, empty years sum 0")
    legend(fig, [LEGEND_FINAL, Patch(facecolor="none", edgecolor=MUTED, linestyle=":", label="empty period"),
                 LEGEND_EVENT, Line2D([], [], marker="v", color=EMIT, linestyle="none", markersize=5,
                                      label="emitted at period_end")])
    save(fig, out, "fenl_cron")


# --- Odysseus ---------------------------------------------------------------------------


def odysseus_interval_pieces(out: Path) -> None:
    events = seed("validity_events")
    pieces = expected("validity_events_count")
    fig, (ax,) = figure(len(events) + 3)
    bounds = sorted(set(events["valid_from"]) | set(events["valid_to"]))
    for b in bounds:
        ax.axvline(b, color="#CCCCCC", linestyle=":", linewidth=0.8, zorder=0)
    for y, e in enumerate(events.itertuples()):
        ax.plot([e.valid_from, e.valid_to], [y, y], color=EVENT, linewidth=2.2, solid_capstyle="butt")
        note(ax, e.valid_to + 0.4, y, f"price {e.price}", size=6)
    y = len(events) + 0.6
    for p in pieces.itertuples():
        final = p.emit_kind == "close"
        window_bar(ax, y, p.window_start, p.window_end, final=final, height=0.9)
        note(ax, (p.window_start + p.window_end) / 2, y, str(p.events_valid), ha="center", fontweight="bold", size=7.5)
        if final:
            note(ax, (p.window_start + p.window_end) / 2, y + 0.8, f"close, emitted at {fmt(p.emitted_at)}",
                 ha="center", size=6, color=WINDOW_EDGE)
        else:
            note(ax, (p.window_start + p.window_end) / 2, y + 0.8, "drain", ha="center", size=6, color=OPEN_EDGE)
    ax.set_yticks(list(range(len(events))) + [y], [f"event {s}" for s in events["seq"]] + ["count(*)"])
    ax.set_ylim(y + 1.2, -0.8)
    ax.set_xlim(-1, 46)
    ax.set_xticks(bounds)
    set_title(fig, "Odysseus interval semantics: one row per elementary interval with valid events "
                 "(validity_events_count)")
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, Line2D([], [], color=EVENT, linewidth=2.2, label="validity [start, end)")])
    save(fig, out, "odysseus_interval_pieces")


def odysseus_panes_hopping(out: Path) -> None:
    bids = seed("auction_bids")
    bids["t"] = (pd.to_datetime(bids["date_time"]) - pd.Timestamp("2024-01-01 12:00:00")) / pd.Timedelta(minutes=1)
    totals = expected("auction_bidder_max_price").set_index("bidder")["max_price"]
    pane, size, advance = 10, 20, 10
    bids["pane"] = (bids["t"] // pane) * pane
    bidders = sorted(bids["bidder"].unique())
    fig, (ax,) = figure(len(bidders) * 4)
    labels, separators, names = [], [], []
    y0 = 0
    for bidder in bidders:
        mine = bids[bids["bidder"] == bidder]
        dots(ax, mine["t"], [y0] * len(mine), size=3)
        panes = mine.groupby("pane")["price"].max()
        for start, high in panes.items():
            window_bar(ax, y0 + 1, start, start + pane, height=0.6, fill="#E4EEDF", color=HIGHLIGHT)
            note(ax, start + pane / 2, y0 + 1, f"max {high}", ha="center", size=6)
        # Spark's window(ts, size, advance): every window [k*advance, k*advance + size) holding a pane
        starts = sorted({s for p in panes.index for s in range(int(p) - size + advance, int(p) + 1, advance)})
        for i, start in enumerate(starts):
            inside = panes[(panes.index >= start) & (panes.index + pane <= start + size)]
            y = y0 + 2 + (i % 2)
            window_bar(ax, y, start, start + size, height=0.6)
            note(ax, start + size / 2, y, f"max {inside.max()}", ha="center", size=6)
        assert panes.max() == totals[bidder]
        note(ax, 52, y0 + 1, f"all panes merged: max {totals[bidder]}", size=6.5, fontweight="bold")
        labels += ["bids", "10-min panes", "20-min windows", ""]
        names.append((y0 + 1.5, str(bidder)))
        y0 += 4
        separators.append(y0 - 0.5)
    rows_axis(ax, labels, top_pad=0.8)
    lane_separators(ax, separators[:-1], names, gap=62)
    ax.tick_params(axis="y", labelsize=6.5, pad=2)
    ax.set_xlim(-12, 72)
    ax.set_xticks(range(-10, 51, 10), [f"12:{m:02d}" if m >= 0 else "11:50" for m in range(-10, 51, 10)])
    set_title(fig, "Odysseus partial aggregates: 10-minute panes per bidder, merged into 20-minute windows every 10")
    legend(fig, [Patch(facecolor="#E4EEDF", edgecolor=HIGHLIGHT, label="pane: partial states"),
                 Patch(facecolor=WINDOW_FILL, edgecolor=WINDOW_EDGE, label="window merged from panes"), LEGEND_EVENT])
    save(fig, out, "odysseus_panes_hopping")


# --- Session windows -----------------------------------------------------------------------


def _sessions(minutes: Iterable[float], gap: float, *, exclusive: bool = False) -> list[list[float]]:
    """Sessions of one key: runs of times (in time order) each at most `gap` after the
    previous (`exclusive`: less than `gap`); a run spans [first, last + gap)."""
    runs: list[list[float]] = []
    for t in sorted(minutes):
        if runs and (t - runs[-1][-1] < gap if exclusive else t - runs[-1][-1] <= gap):
            runs[-1].append(t)
        else:
            runs.append([t])
    return runs


def sessions_gap(out: Path) -> None:
    base, gap = "2024-03-01 00:00:00", 30
    # (user, time) in arrival order: u2's 10:10 arrives late, after its 10:45
    arrivals = [("u1", "09:00"), ("u1", "09:10"), ("u1", "09:25"), ("u2", "09:40"), ("u2", "09:50"), ("u1", "09:55"),
                ("u2", "10:35"), ("u2", "10:45"), ("u2", "10:10"), ("u1", "11:30")]
    events = pd.DataFrame(arrivals, columns=["user", "clock"])
    events["m"] = (pd.to_datetime("2024-03-01 " + events["clock"]) - pd.Timestamp(base)) / pd.Timedelta(minutes=1)
    late = 8

    def state(seen: pd.DataFrame, user: str) -> list[tuple[float, float, list[float], bool]]:
        """The user's sessions over the events seen: (start, end, times, final) in hours."""
        mine = seen[seen["user"] == user]["m"]
        return [(run[0] / 60, (run[-1] + gap) / 60, [t / 60 for t in run], seen["m"].max() > run[-1] + gap)
                for run in _sessions(mine, gap)]

    label = clock(base)
    stream_end = events["m"].max() / 60
    fig, (ax,) = figure(10, title="Session windows: 30-minute gap per user; a session ends 30 minutes after its "
                        "last event",
                        subtitle="Per user, in time order, an event at most 30 min after the previous one joins its "
                                 "session (gap_boundary='exclusive': less than 30 min);\na session spans [first event, "
                                 "last event + 30 min) and is final once any event of the stream, of any user, is past "
                                 "its end.")
    ax.axvline(stream_end, color=EMIT, linewidth=0.8, zorder=1)
    note(ax, stream_end + 0.04, -0.95, f"the stream's last event ({label(stream_end)})", color=EMIT, size=6)
    boxed = {"bbox": {"facecolor": "white", "edgecolor": "none", "pad": 0.6}}

    # u1: the session as each of its first four events arrives, then all of u1's sessions
    u1 = events[events["user"] == "u1"]
    dots(ax, u1["m"] / 60, [0] * len(u1))
    for y, i in enumerate(u1.index[:4], start=1):
        ((start, end, times, final),) = state(events.loc[:i], "u1")
        assert not final  # nothing in the stream past its end yet
        window_bar(ax, y, start, end, final=False)
        dots(ax, times, [y] * len(times), size=3.2)
        step = round((times[-1] - times[-2]) * 60) if len(times) > 1 else None  # minutes
        text = (f"[{label(start)}, {label(end)})" if step is None
                else f"+{step} min: joins, ends at {label(end)}")
        if step == gap:
            text = f"exactly 30 min: joins (inclusive), ends at {label(end)}"
        note(ax, end + 0.04, y, text, size=6.5, fontweight="bold" if step == gap else "normal", **boxed)
    assert _sessions(u1["m"].iloc[:4], gap, exclusive=True) == [[540, 550, 565], [595]]
    finished = state(events, "u1")
    assert [(s, e, f) for s, e, _, f in finished] == [(9, 10 + 25 / 60, True), (11.5, 12, False)]
    for start, end, times, final in finished:
        window_bar(ax, 5, start, end, final=final)
        dots(ax, times, [5] * len(times), size=3.2)
    note(ax, (finished[0][0] + finished[0][1]) / 2, 5, "final", ha="center", size=6.5)
    note(ax, finished[1][1] + 0.04, 5, f"+{fmt((finished[1][0] - finished[0][2][-1]) * 60)} min: new session, "
         f"open (nothing past {label(finished[1][1])})", size=6.5)

    # u2: two sessions, then the late event bridges them
    u2 = events[events["user"] == "u2"]
    dots(ax, u2["m"].drop(late) / 60, [6] * (len(u2) - 1))
    dots(ax, [events.loc[late, "m"] / 60], [6], color=INTERMEDIATE)
    note(ax, u2["m"].max() / 60 + 0.06, 6, f"{events.loc[late, 'clock']} arrives late, after "
         f"{u2.loc[:late - 1, 'clock'].max()}", color=INTERMEDIATE, size=6.5, **boxed)
    before = state(events.loc[:late - 1], "u2")
    assert len(before) == 2
    for start, end, times, _ in before:
        ghost_bar(ax, 7, start, end)
        dots(ax, times, [7] * len(times), size=3.2)
    apart = before[1][2][0] - before[0][2][-1]
    note(ax, before[1][1] + 0.04, 7, f"{fmt(apart * 60)} min apart: two sessions", size=6.5, **boxed)
    ((start, end, times, final),) = state(events, "u2")
    assert final and stream_end > end  # u1's 11:30 closes u2's session
    window_bar(ax, 8, start, end, final=final)
    dots(ax, [t for t in times if t != events.loc[late, "m"] / 60], [8] * (len(times) - 1), size=3.2)
    dots(ax, [events.loc[late, "m"] / 60], [8], color=INTERMEDIATE, size=3.2)
    note(ax, end + 0.04, 8, f"one session, final: u1's {label(stream_end)} is past {label(end)}", size=6.5, **boxed)

    labels = ["events", "after 09:00", "after 09:10", "after 09:25", "after 09:55", "all events",
              "events", "before", "after the late event"]
    rows_axis(ax, labels, top_pad=1.1)
    lane_separators(ax, [5.5], [(2.5, "u1"), (7, "u2")], gap=76)
    ax.tick_params(axis="y", labelsize=6.5, pad=2)
    ax.set_xlim(8.75, 13.75)
    hour_ticks(ax, 9, 13.5, 0.5, label)
    legend(fig, [LEGEND_FINAL, LEGEND_OPEN, Patch(facecolor="none", edgecolor=MUTED, linestyle=":",
                                                  label="replaced by the merged session"),
                 LEGEND_EVENT, Line2D([], [], marker="o", color=INTERMEDIATE, linestyle="none", markersize=4,
                                      label="late event")])
    save(fig, out, "sessions_gap")


# --- output ------------------------------------------------------------------------------

PICTURES_DRAWN: list[Callable[[Path], None]] = [
    sqlstream_range_ties,
    sqlstream_range_partitioned,
    sqlstream_range_following,
    sqlstream_rows,
    streambase_tumbling,
    streambase_hopping_offset,
    streambase_optional_windows,
    streambase_emit_every,
    streambase_opening_none,
    streambase_field_jump,
    streaminsight_count_points,
    streaminsight_count_intervals,
    fenl_cumulative,
    fenl_sliding,
    fenl_since,
    fenl_cron,
    odysseus_interval_pieces,
    odysseus_panes_hopping,
    sessions_gap,
]

_SIZE = re.compile(rb'<svg([^>]*?) width="([0-9.]+)pt" height="([0-9.]+)pt"')


def small_copy(svg: bytes) -> bytes:
    """The same drawing, shown SMALL_WIDTH_PT wide (the viewBox keeps its coordinates)."""
    match = _SIZE.search(svg)
    if match is None:
        raise ValueError("no width/height on the <svg> element")
    width, height = float(match.group(2)), float(match.group(3))
    small_height = height * SMALL_WIDTH_PT / width
    replacement = b'<svg%s width="%.0fpt" height="%.0fpt"' % (match.group(1), SMALL_WIDTH_PT, small_height)
    return svg[: match.start()] + replacement + svg[match.end():]


def _without_text(fig) -> None:
    """Drop every text of the figure (titles, labels, notes, legends): the small copy is
    the drawing alone, a thumbnail that links to the full picture."""
    if fig._suptitle is not None:
        fig._suptitle.remove()
    for text in list(fig.texts):  # a subtitle
        text.remove()
    for ax in fig.axes:
        ax.set_title("")
        for text in list(ax.texts):
            text.remove()
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        ax.tick_params(labelleft=False, labelbottom=False)


_INLINE: dict[str, bytes] = {}  # name -> the macro page's inline SVG, collected by save()


def save(fig, out: Path, name: str) -> None:
    path = out / f"{name}.svg"
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.08)
    if name in MACRO_PICTURES:
        inline = io.BytesIO()
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig.savefig(inline, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.08)
        _INLINE[name] = inline.getvalue()
    small = out / SMALL_DIR
    small.mkdir(exist_ok=True)
    _without_text(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.04)
    plt.close(fig)
    (small / f"{name}.svg").write_bytes(small_copy(buffer.getvalue()))


def check_font() -> None:
    found = Path(font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans")))
    bundled = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    if found.parent != bundled:
        raise RuntimeError(f"DejaVu Sans resolves to {found}, not matplotlib's own copy in {bundled}: "
                           "the pictures' bytes would depend on this machine's fonts")


def write_macro_pictures(out: Path) -> Path:
    """out/macro_pictures.md: one dbt doc block per macro page picture, holding the SVG as
    a data URI (which the docs site's sanitizer lets through for images): a macro's
    description shows it as `![<alt>]({{ doc('stream_windows_picture_<name>') }})`."""
    blocks = ["{#- Generated by docs/pictures/draw_windows.py (make pictures): the pictures of the",
              "    package's macro pages, inline, so that they show in any project's docs site. -#}"]
    for name in MACRO_PICTURES:
        data = base64.b64encode(_INLINE[name]).decode("ascii")
        blocks.append(f"{{% docs stream_windows_picture_{name} %}}data:image/svg+xml;base64,{data}{{% enddocs %}}")
    path = out / MACRO_PICTURES_MD
    path.write_text("\n".join(blocks) + "\n")
    return path


def draw_all(out: Path = PICTURES) -> list[Path]:
    """Draw every picture into `out` (its small copies into out/small, the macro pages'
    inline ones into out/macro_pictures.md); returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    _INLINE.clear()
    with matplotlib.rc_context(STYLE):
        check_font()
        for draw in PICTURES_DRAWN:
            draw(out)
    write_macro_pictures(out)
    return sorted([*out.glob("*.svg"), *(out / SMALL_DIR).glob("*.svg"), out / MACRO_PICTURES_MD])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PICTURES, help="folder to write the SVGs to")
    args = parser.parse_args(argv)
    for path in draw_all(args.out):
        print(f"{path.stat().st_size:>8} {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
