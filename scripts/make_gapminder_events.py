"""Make examples/gapminder_events.csv, the example event file of `[events] trace`.

Source: the Gapminder excerpt (142 countries, every 5 years 1952-2007: life expectancy,
population, GDP per capita) that the plotly wheel ships as
``plotly/package_data/datasets/gapminder.csv.gz`` (plotly is MIT-licensed; Gapminder
publishes its data under CC BY 4.0, https://www.gapminder.org/data/). plotly is not a
dependency of cnsim: give the file's path, or have plotly installed.

    python scripts/make_gapminder_events.py [path/to/gapminder.csv.gz]

Mapping (a choice, written into the README):
* object = the country's index in name order, 0 .. 141 (not its ISO numeric code: the
  excerpt gives both Koreas the code 410, which the file's validation refused);
* x = (log10(GDP per capita in US$) - 2) / 3.2, rounded to 9 decimals (100 $ -> 0,
  ~158,000 $ -> 1), so a range subscription asks for countries in a band of income;
* y = life expectancy / 100 + index * 1e-8, rounded to 10 decimals: a subscription's
  top-k are the k countries of its income band with the lowest life expectancy. The
  tiny index term breaks exact ties (the data give life expectancy to 0.001 years, and
  some countries share a value in a year), which cnsim refuses: a present object needs
  its own x and its own y; it is below the data's resolution, so it reorders no two
  different values;
* a country is present while its population is at least 2 million: 'initial' in 1952 if
  so, then 'insert' when it reaches 2 million and 'delete' when it falls below (Liberia
  in 1992, during its civil war; back in 1997);
* every 5-year step, each present country is updated ('update'; a new x makes it a
  move); time = years since 1952 as seconds, the events of a step spread evenly over
  the 5 seconds before its year, countries in name order.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

OUT = Path(__file__).resolve().parent.parent / "examples" / "gapminder_events.csv"
MIN_POP = 2_000_000


def source(argv: list[str]) -> Path:
    """The gapminder.csv.gz to read: the argument, else the installed plotly's."""
    if len(argv) > 1:
        return Path(argv[1])
    import plotly  # noqa: PLC0415 - only when no path is given

    return Path(plotly.__file__).parent / "package_data" / "datasets" / "gapminder.csv.gz"


def rows(data: pd.DataFrame) -> list[tuple]:
    """The event file's rows ``(time, object, op, x, y)``."""
    data = data.sort_values(["year", "country"])
    index = {name: i for i, name in enumerate(sorted(data["country"].unique()))}
    out: list[tuple] = []
    present: set[int] = set()
    years = sorted(data["year"].unique())
    for step, year in enumerate(years):
        snap = data[data["year"] == year]
        events = []
        for r in snap.itertuples():
            obj = index[r.country]
            x = round((math.log10(r.gdpPercap) - 2) / 3.2, 9)
            y = round(r.lifeExp / 100 + obj * 1e-8, 10)
            assert 0 <= x < 1 and 0 <= y < 1, (r.country, year, x, y)
            big = r.pop >= MIN_POP
            if step == 0:
                if big:
                    out.append((0.0, obj, "initial", x, y))
                    present.add(obj)
                continue
            if big and obj not in present:
                events.append((obj, "insert", x, y))
                present.add(obj)
            elif big:
                events.append((obj, "update", x, y))
            elif obj in present:
                events.append((obj, "delete", "", ""))
                present.discard(obj)
        start = float(year - years[0] - (year - years[step - 1])) if step else 0.0
        span = float(year - years[step - 1]) if step else 0.0
        for i, (obj, op, x, y) in enumerate(events):
            out.append((round(start + span * (i + 1) / len(events), 6), obj, op, x, y))
    return out


def main(argv: list[str]) -> None:
    """Write the example file."""
    data = pd.read_csv(source(argv))
    table = pd.DataFrame(rows(data), columns=["time", "object", "op", "x", "y"])
    table.to_csv(OUT, index=False)
    ops = table["op"].value_counts().to_dict()
    print(f"wrote {OUT} ({len(table)} rows: {ops})")


if __name__ == "__main__":
    main(sys.argv)
