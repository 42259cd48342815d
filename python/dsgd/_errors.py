"""dsgd's exceptions and warnings, and the one place a call's outcome becomes one of them.

Every error carries the CLI's message (what is wrong) and its hint (what to do), and the exit code
`dsgd run` would have ended with, so a script and the command line report a problem alike.
"""
import warnings


class DsgdError(RuntimeError):
    """A run, sweep or report that could not go on (the CLI's exit code 1 or 4)."""

    def __init__(self, message, hint="", exit_code=1):
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))
        self.message = message
        self.hint = hint
        self.exit_code = exit_code


class ConfigError(DsgdError, ValueError):
    """Bad input, found before anything ran: an unknown key (named with the closest valid one), a
    value of the wrong type or out of range, a model or data that cannot train (exit code 2)."""


class HangError(DsgdError):
    """An MPI rank stopped answering for mpi.hang_timeout seconds (exit code 4)."""


class RunStoppedWarning(UserWarning):
    """The run ended early with a result: its loss diverged or it collapsed to a uniform guess
    (exit code 3). The run it belongs to has the status and the epoch."""


def raise_for(outcome):
    """Raises what a _core call's outcome (exit_code, message, hint) means; returns for success
    and for a diverged or collapsed run (exit code 3), which the caller warns about."""
    code, message, hint = outcome["exit_code"], outcome["message"], outcome["hint"]
    if code in (0, 3):
        return
    if code == 2:
        raise ConfigError(message, hint, code)
    if code == 4:
        raise HangError(message, hint, code)
    if code > 128:
        # SIGINT, SIGTERM or SIGUSR1: the run stopped at an update with a checkpoint.
        raise KeyboardInterrupt(message + (f"\n  {hint}" if hint else ""))
    raise DsgdError(message, hint, code)


def warn_stopped(run):
    warnings.warn(f"the run in {run.path} ended early: {run.status} "
                  f"({run.summary.get('error', '')})", RunStoppedWarning, stacklevel=3)
