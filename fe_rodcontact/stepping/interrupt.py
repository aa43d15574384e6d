"""Ctrl-C and SIGTERM as a clean, collective stop at the end of a completed step.

A cluster scheduler sends SIGTERM at its time limit; a user presses Ctrl-C (SIGINT). Inside
:func:`stop_on_signals` the first such signal only sets a flag; the long loops (load steps,
time steps) call :func:`stop_requested` after every completed step, which agrees on every
rank (one ``allreduce``) that some rank was signalled, so all ranks stop at the same step,
write what they must (a dynamics checkpoint) and raise :class:`Interrupted`. A second signal
interrupts at once (``KeyboardInterrupt``). Outside :func:`stop_on_signals` (the Python API)
nothing is installed and :func:`stop_requested` costs nothing.
"""

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from mpi4py import MPI

__all__ = ["Interrupted", "stop_on_signals", "stop_requested"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_state: dict[str, int | bool] = {"installed": False, "received": 0}


class Interrupted(Exception):
    """A run stopped by a signal after a completed step.

    Args:
        signum: The signal (``signal.SIGINT`` or ``signal.SIGTERM``).
        message: Where the run stopped and how to continue.
    """

    def __init__(self, signum: int, message: str):
        super().__init__(message)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process stopped by that signal."""
        return 128 + int(self.signum)


def _handler(signum: int, _frame: FrameType | None) -> None:
    if _state["received"]:
        raise KeyboardInterrupt  # the second signal: stop now
    _state["received"] = signum


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within this block, SIGINT and SIGTERM request a stop instead of killing the process."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in _SIGNALS}
    _state.update(installed=True, received=0)
    for s in _SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _state.update(installed=False, received=0)


def stop_requested(comm: MPI.Comm) -> int:
    """The signal some rank received (0: none); collective inside :func:`stop_on_signals`."""
    if not _state["installed"]:
        return 0
    return int(comm.allreduce(int(_state["received"]), op=MPI.MAX))
