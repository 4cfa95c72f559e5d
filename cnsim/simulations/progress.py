"""Progress of the long commands (``run``, ``sweep``, ``reproduce``), suited to where
it is shown: on a terminal a tqdm bar, redrawn in place; anywhere else (a log file, a
pipe, CI) one plain line every few seconds (:func:`interval_s`) — units done of the total,
the rate and the estimated time left — and a last line if any was printed, so a long
run's log shows it advancing without hundreds of carriage-return redraws.

``CNSIM_PROGRESS_S`` sets the interval of the plain lines (seconds; 0: a line at every
update; anything but a number >= 0 is refused before any work).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, TypeVar

from cnsim.errors import InputError

T = TypeVar("T")


def interval_s() -> float:
    """Seconds between two plain progress lines: ``$CNSIM_PROGRESS_S``, else 10; a value
    that is not a finite number >= 0 is an :class:`InputError` naming the variable (the
    long commands call this before any work)."""
    text = os.environ.get("CNSIM_PROGRESS_S", "")
    if text.strip() == "":
        return 10.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise InputError(
            f"$CNSIM_PROGRESS_S = {text!r} is not a number of seconds; allowed: a finite "
            "number >= 0 (0: a line at every update), or unset for 10"
        )
    return value


def is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is shown on a terminal (a bar can be redrawn in place)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a file
        return False


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: ``42 s``, ``7 min 5 s``, ``2 h 03 min``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    """Units done of ``total``: a tqdm bar on a terminal, plain lines elsewhere, nothing
    when not ``enabled``. ``update(n)`` adds ``n`` done (0: only a chance to print)."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        enabled: bool = True,
        leave: bool = True,
        stream: IO[str] | None = None,
    ) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = sys.stderr if stream is None else stream
        self.n = 0
        self.lines = 0  # plain lines printed
        self._bar: Any = None
        self.mode = "off"
        if enabled:
            self.mode = "bar" if is_terminal(self.stream) else "lines"
        if self.mode == "bar":
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, leave=leave, file=self.stream)
        self._started = self._last = time.monotonic()
        self._every = interval_s()

    def update(self, n: int = 1) -> None:
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        elif self.mode == "lines":
            now = time.monotonic()
            if now - self._last >= self._every:
                self._last = now
                self._print(now)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.mode == "lines" and self.lines:  # the end of what the lines followed
            self._print(time.monotonic(), last=True)
        self.mode = "off"

    def line(self, now: float, last: bool = False) -> str:
        """The plain line: done of total, rate, time left (or taken, at the end)."""
        elapsed = now - self._started
        units = self.unit + ("es" if self.unit.endswith(("ch", "sh", "s", "x")) else "s")
        head = f"{self.desc}: {self.n:,}/{self.total:,} {units}"
        if self.total:
            head += f" ({100 * self.n / self.total:.0f}%)"
        if last:
            return f"{head} in {duration(elapsed)}"
        if self.n == 0 or elapsed <= 0:
            return f"{head}, {duration(elapsed)} so far"
        rate = self.n / elapsed
        pace = f"{rate:.1f} {units}/s" if rate >= 0.1 else f"{rate * 60:.1f} {units}/min"
        left = max(self.total - self.n, 0) / rate
        return f"{head}, {pace}, ETA {duration(left)}"

    def _print(self, now: float, last: bool = False) -> None:
        print(self.line(now, last), file=self.stream, flush=True)
        self.lines += 1

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(
    items: Iterable[T],
    total: int,
    desc: str,
    unit: str,
    enabled: bool = True,
    leave: bool = True,
) -> Iterator[T]:
    """``items``, one :class:`Progress` unit each."""
    with Progress(total, desc, unit, enabled, leave) as progress:
        for item in items:
            yield item
            progress.update()
