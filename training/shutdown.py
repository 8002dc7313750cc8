"""Bounded exit: a run that has finished its last step must leave within ``--exit-timeout`` seconds.

On Kubernetes a process that hangs after its last step (a peer that never reaches the final barrier, a
stuck upload, a process-group teardown that blocks) keeps the Job from completing and its nodes billing.
:class:`ExitWatchdog` is armed after the last step; each shutdown phase names itself, and when the bound
passes the watchdog prints what the rank was waiting for and every thread's stack, then ends the process
with :data:`EXIT_HUNG`. Only the command-line entry points arm it: a library caller's process is its own.

That watchdog is a Python thread, so it needs the GIL; a native call that blocks while holding it (a process
group's destructor joining gloo's threads was seen to) would starve it. So arming also starts faulthandler's
own C timer (``dump_traceback_later(..., exit=True)``, no GIL needed) :data:`BACKSTOP_GRACE_S` later: it prints
``Timeout (H:MM:SS)!`` and every thread's stack, then ends the process with exit code 1.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time
from typing import IO

# Exit codes of the trainer's command line (2 is a configuration error, 1 a failed upload).
EXIT_DIVERGED = 3
EXIT_HUNG = 4
# A collective or barrier failed or timed out (--collective-timeout): a peer died or stopped answering.
EXIT_PEER_LOST = 5
# How long after the watchdog's bound faulthandler's C timer ends a process whose Python watchdog could not run.
BACKSTOP_GRACE_S = 5.0


class ExitWatchdog:
    """Ends this process with :data:`EXIT_HUNG` when it is still alive ``timeout`` seconds after :meth:`arm`."""

    def __init__(self, timeout: float, rank: int = 0, stream: IO[str] | None = None) -> None:
        self.timeout, self.rank = timeout, rank
        self._stream = stream or sys.stderr
        self._phase = "nothing"
        self._deadline: float | None = None
        self._lock = threading.Lock()

    @property
    def armed(self) -> bool:
        return self._deadline is not None

    def remaining(self) -> float | None:
        """Seconds left before the watchdog fires (None when not armed); bounds each shutdown wait."""
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def arm(self, phase: str) -> None:
        """Start the clock (once) and record what the rank waits for now."""
        with self._lock:
            self._phase = phase
            if self._deadline is not None:
                return
            self._deadline = time.monotonic() + self.timeout
        threading.Thread(target=self._watch, name="exit-watchdog", daemon=True).start()
        faulthandler.dump_traceback_later(self.timeout + BACKSTOP_GRACE_S, exit=True, file=_file_with_fd(self._stream))

    def waiting_for(self, phase: str) -> None:
        """Name the current shutdown phase (what a hang report will say the rank waited for)."""
        with self._lock:
            self._phase = phase

    def _watch(self) -> None:
        time.sleep(self.timeout)
        with self._lock:
            phase = self._phase
        self._stream.write(f"error: rank {self.rank} did not exit within {self.timeout:g} s after its last step; "
                           f"waiting for: {phase}; stacks follow, exiting {EXIT_HUNG}\n")
        self._stream.flush()
        try:
            faulthandler.dump_traceback(file=self._stream, all_threads=True)
        except (ValueError, OSError, AttributeError):  # a stream without a file descriptor
            pass
        self._stream.flush()
        os._exit(EXIT_HUNG)


def _file_with_fd(stream: IO[str]) -> IO[str]:
    """``stream`` when it has a file descriptor (faulthandler writes to the descriptor), else the real stderr."""
    try:
        stream.fileno()
        return stream
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__


def exit_now(code: int) -> None:
    """Flush and leave without interpreter teardown, whose atexit hooks and C++ destructors (process
    groups, CUDA contexts) are where finished runs were seen to hang; everything was closed already."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
