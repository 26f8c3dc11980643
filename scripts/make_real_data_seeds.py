"""Writes the real-data seeds from the CSV files the `vega-datasets` wheel ships.

Run by `make seeds-data` (the CSVs are committed; rerun only to regenerate them).
Arrival order (`seq`) is time order with city as the tie-break, as a feed merging
the two stations' hourly readings would deliver them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from vega_datasets import data

SEEDS = Path(__file__).resolve().parents[1] / "seeds"


def hourly_temperatures() -> pd.DataFrame:
    seattle = data.seattle_temps().assign(city="Seattle")
    san_francisco = data.sf_temps().assign(city="San Francisco")
    readings = pd.concat([seattle, san_francisco], ignore_index=True)
    readings = readings.rename(columns={"date": "reading_at", "temp": "temp_f"})
    readings = readings.sort_values(["reading_at", "city"], kind="stable", ignore_index=True)
    readings.insert(0, "seq", range(1, len(readings) + 1))
    readings["reading_at"] = readings["reading_at"].dt.strftime("%Y-%m-%d %H:%M:%S")
    return readings[["seq", "reading_at", "city", "temp_f"]]


def main() -> None:
    hourly = hourly_temperatures()
    hourly.to_csv(SEEDS / "hourly_temperatures.csv", index=False)
    print(f"hourly_temperatures.csv: {len(hourly)} rows")


if __name__ == "__main__":
    main()
