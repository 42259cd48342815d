"""dsgd's exceptions and warnings: one class for each of the C++ engine's error types
(src/core/errors.h), raised by the binding itself (python/bindings/boundary.cpp), so that a script
and the command line report a problem alike.

Every error carries the CLI's message (what is wrong), its hint (what to do), and the exit code
`dsgd run` would have ended with. Errors in the input are also ValueErrors.
"""
from __future__ import annotations


class DsgdError(RuntimeError):
    """A run, sweep or report that could not go on (the CLI's exit code 1)."""

    def __init__(self, message: str, hint: str = "", exit_code: int = 1) -> None:
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))
        self.message = message
        self.hint = hint
        self.exit_code = exit_code


class ConfigError(DsgdError, ValueError):
    """Bad input, found before anything ran: an unknown key (named with the closest valid one), a
    value of the wrong type or out of range, a model that cannot train (exit code 2)."""

    def __init__(self, message: str, hint: str = "", exit_code: int = 2) -> None:
        super().__init__(message, hint, exit_code)


class DataError(DsgdError, ValueError):
    """A dataset that cannot be read: missing, truncated or corrupt files (exit code 2)."""

    def __init__(self, message: str, hint: str = "", exit_code: int = 2) -> None:
        super().__init__(message, hint, exit_code)


class DivergedError(DsgdError):
    """The training loss became NaN or Inf (exit code 3). dsgd.train and dsgd.resume return the
    run instead, with a RunStoppedWarning; this class is what the run ended with."""


class CollapsedError(DivergedError):
    """The training loss stayed at a uniform guess's for a whole evaluation period after the
    warm-up (exit code 3), returned like DivergedError."""


class HangError(DsgdError):
    """An MPI rank stopped answering for mpi.hang_timeout seconds (exit code 4)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C, SIGTERM or SIGUSR1 stopped the run at an update, after a checkpoint (exit code 128
    + the signal): dsgd.resume(path) finishes it. A KeyboardInterrupt, so that `except Exception`
    does not swallow it."""

    def __init__(self, message: str, hint: str = "", exit_code: int = 130) -> None:
        super().__init__(message + (f"\n  {hint}" if hint else ""))
        self.message = message
        self.hint = hint
        self.exit_code = exit_code


class RunStoppedWarning(UserWarning):
    """The run ended early with a result: its loss diverged or it collapsed to a uniform guess
    (exit code 3). The run it belongs to has the status and the epoch."""
