"""How a run's progress shows in Python: a tqdm bar when tqdm is installed (tqdm.auto: a widget in
a notebook), else the CLI's lines, written through Python's sys.stderr so that a notebook shows
them too."""
from __future__ import annotations

import sys
from typing import Any, Optional, Union

from ._errors import ConfigError


class Lines:
    def update(self, updates: int, total: int, epoch: float, lr: float, loss: float,
               accuracy: float) -> None:
        pass

    def log(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        pass


class Bar:
    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._bar: Any = None

    def update(self, updates: int, total: int, epoch: float, lr: float, loss: float,
               accuracy: float) -> None:
        if self._bar is None:
            self._bar = self._tqdm(total=total, unit="upd", dynamic_ncols=True)
        self._bar.n = updates
        postfix = {"epoch": f"{epoch:.2f}", "lr": f"{lr:.3g}", "loss": f"{loss:.4f}"}
        if accuracy >= 0:
            postfix["acc"] = f"{accuracy:.4f}"
        self._bar.set_postfix(postfix, refresh=False)
        self._bar.refresh()

    def log(self, line: str) -> None:
        (self._bar or self._tqdm).write(line, file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


PROGRESS_CHOICES = ("auto", "bar", "lines")


def check(progress: Union[str, bool, None]) -> None:
    """Refuses a progress setting that is none of make()'s, before anything runs."""
    if progress is None or isinstance(progress, bool) or progress in PROGRESS_CHOICES:
        return
    raise ConfigError(f"progress must be \"auto\", \"bar\", \"lines\" or None, not {progress!r}",
                      "\"auto\" shows a tqdm bar where tqdm is installed and the CLI's lines "
                      "elsewhere; None shows nothing")


def make(progress: Union[str, bool, None]) -> Optional[Union[Bar, Lines]]:
    """progress: "auto" (a bar if tqdm is installed, else lines), "bar", "lines" or None, as
    check() has let through (train and resume call it before anything runs)."""
    if progress is None or progress is False:
        return None
    if progress == "lines":
        return Lines()
    try:
        from tqdm.auto import tqdm
    except ImportError as error:
        if progress == "bar":
            raise ImportError('progress="bar" needs tqdm (pip install tqdm); progress="lines" '
                              "shows the CLI's lines instead") from error
        return Lines()
    return Bar(tqdm)
