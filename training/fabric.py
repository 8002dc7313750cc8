"""EFA or nothing: a job whose pods asked for EFA interfaces trains only when NCCL runs over them.

When the EFA plugin (aws-ofi-nccl) cannot start (no ``/dev/infiniband`` in the container, a libfabric without the
efa provider, a plugin built for another libfabric), NCCL falls back to TCP sockets and trains on, many times slower,
with no error. NCCL says which network it took only in its INFO log, so a rendered EFA job sets ``NCCL_DEBUG=INFO``
(INIT and NET only, unless the user asked for more) and ``NCCL_DEBUG_FILE`` (one file per process, NCCL's own
``%h``/``%p`` expansion), and :func:`require_efa` reads this process's file once its communicator is up:

* ``Using network <name>`` (NCCL's choice of transport: ``Libfabric``, ``AWS Libfabric`` in older plugins, or
  NCCL's own ``Socket`` / ``IB``);
* ``NET/OFI Selected Provider is <provider>`` (the plugin's libfabric provider: ``efa``, or ``tcp;ofi_rxm`` where
  the plugin itself runs over TCP);
* ``NET/OFI aws-ofi-nccl initialization failed`` / ``NET/OFI Initializing plugin failed`` (the fallback's cause);
* the channel lines of older NCCL, ``via NET/AWS Libfabric/0`` or ``via NET/Socket/0``, where no ``Using network``
  line is printed.

A process is on EFA when its network is the libfabric plugin's and no provider other than ``efa`` was selected.
Anything else (or no network line at all) stops the run with one line naming what was found, exit
:data:`EXIT_NO_EFA`, unless ``--allow-tcp true`` says TCP is acceptable (then it is one warning line).
"""

from __future__ import annotations

import os
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from eks_training.core.names import NCCL_DEBUG_FILE_ENV, REQUIRE_EFA_ENV

#: The trainer's exit code when a job that asked for EFA finds NCCL on another network.
EXIT_NO_EFA = 6

# NCCL's debug line prefix: "<host>:<pid>:<tid> [<cuda dev>]", then (WARN lines) "<function>:<line> ", then
# "NCCL INFO|WARN <message>". Anything before it (a timestamp, mpirun's "[1,9]<stdout>:", a CloudWatch column) is
# ignored.
_LINE = re.compile(r"(?P<host>[\w.-]+):(?P<pid>\d+):\d+ \[\d+\] (?:\S+ )?NCCL (?:INFO|WARN) (?P<message>.*?)\s*$")
_NETWORK = re.compile(r"^Using network (?P<name>.+)$")
_PROVIDER = re.compile(r"^NET/OFI Selected [Pp]rovider is (?P<name>[^\s,(]+)")
_CHANNEL = re.compile(r"via NET/(?P<name>[A-Za-z][A-Za-z ]*?)/\d+")
_PLUGIN_FAILED = re.compile(r"^NET/OFI (aws-ofi-nccl initialization failed|Initializing plugin failed)")
#: The network names NCCL reports for the libfabric plugin (aws-ofi-nccl), old and new.
LIBFABRIC_NETWORKS = ("Libfabric", "AWS Libfabric")


class EfaNotInUse(RuntimeError):
    """NCCL of a job that asked for EFA runs on another network; the message is the one line."""


@dataclass(frozen=True)
class NcclNetwork:
    """What one process's NCCL log says about its network: the transport NCCL chose, the libfabric provider the
    EFA plugin selected, and whether the plugin reported failing to start."""

    process: str
    network: str | None = None
    providers: tuple[str, ...] = ()
    plugin_failed: bool = False

    @property
    def on_efa(self) -> bool:
        if self.network is not None:
            return self.network in LIBFABRIC_NETWORKS and set(self.providers) <= {"efa"}
        return not self.plugin_failed and self.providers != () and set(self.providers) == {"efa"}

    def found(self) -> str:
        """What was found, in the log's own words."""
        parts = []
        if self.network is not None:
            parts.append(f"NCCL network {self.network}")
        if self.providers:
            parts.append(f"libfabric provider {', '.join(self.providers)}")
        if self.plugin_failed:
            parts.append("the EFA plugin (aws-ofi-nccl) failed to initialize")
        return "; ".join(parts) or "no NCCL network line"


def read_nccl_networks(text: str) -> dict[str, NcclNetwork]:
    """Per process (``host:pid``), in order of first appearance, what NCCL's INFO/WARN lines in ``text`` say about
    its network (lines of NCCL's debug output, in a file of its own or mixed into other output)."""
    found: dict[str, dict] = {}
    for raw in text.splitlines():
        line = _LINE.search(raw)
        if line is None:
            continue
        process = f"{line['host']}:{line['pid']}"
        entry = found.setdefault(process, {"network": None, "channel": None, "providers": [], "failed": False})
        message = line["message"]
        if network := _NETWORK.match(message):
            entry["network"] = network["name"].strip()
        elif provider := _PROVIDER.match(message):
            if provider["name"] not in entry["providers"]:
                entry["providers"].append(provider["name"])
        elif _PLUGIN_FAILED.match(message):
            entry["failed"] = True
        elif (channel := _CHANNEL.search(message)) and entry["channel"] is None:
            entry["channel"] = channel["name"].strip()
    return {process: NcclNetwork(process, entry["network"] or entry["channel"], tuple(entry["providers"]),
                                 entry["failed"])
            for process, entry in found.items()}


def efa_problem(text: str, where: str) -> str | None:
    """The one line that says why the NCCL log ``text`` (from ``where``) is not of processes on EFA; None if every
    process in it is."""
    # A process whose lines say nothing about its network (other subsystems, a log cut short) is not judged.
    networks = [n for n in read_nccl_networks(text).values() if n.network or n.providers or n.plugin_failed]
    if not networks:
        return (f"this job requested EFA interfaces, but {where} has no NCCL network line (NCCL_DEBUG=INFO with "
                "NCCL_DEBUG_SUBSYS including INIT and NET prints them), so EFA cannot be confirmed")
    for network in networks:
        if not network.on_efa:
            return (f"this job requested EFA interfaces, but NCCL is not using the EFA network plugin: found "
                    f"{network.found()} (process {network.process}, {where})")
    return None


def debug_file_path(pattern: str, *, host: str | None = None, pid: int | None = None) -> Path:
    """The file NCCL writes for ``NCCL_DEBUG_FILE=pattern`` in this process, expanded as NCCL's debug init does:
    ``%h`` the host name up to its first dot, ``%p`` the pid, ``%%`` a percent sign, any other ``%x`` as is."""
    host = (socket.gethostname() if host is None else host).split(".", 1)[0]
    pid = os.getpid() if pid is None else pid
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] != "%" or i + 1 >= len(pattern):
            out.append(pattern[i])
            i += 1
            continue
        code = pattern[i + 1]
        out.append({"%": "%", "h": host, "p": str(pid)}.get(code, "%" + code))
        i += 2
    return Path("".join(out))


def require_efa(*, allow_tcp: bool, rank: int, env: Mapping[str, str] | None = None,
                log_path: Path | None = None) -> str | None:
    """Where the job asked for EFA (``REQUIRE_EFA_ENV`` is 1), raise :class:`EfaNotInUse` unless this process's
    NCCL log shows EFA; with ``allow_tcp`` print the finding as a warning instead. Call it after NCCL has built
    its first communicator. Returns what was printed or raised (None where nothing is required)."""
    env = os.environ if env is None else env
    if env.get(REQUIRE_EFA_ENV) != "1":
        return None
    if log_path is None:
        pattern = env.get(NCCL_DEBUG_FILE_ENV)
        if not pattern:
            problem = (f"this job requested EFA interfaces, but {NCCL_DEBUG_FILE_ENV} is not set: NCCL's network "
                       "cannot be confirmed")
            return _refuse(problem, allow_tcp, rank)
        log_path = debug_file_path(pattern)
    try:
        text = log_path.read_text(errors="replace")
    except OSError as error:
        return _refuse(f"this job requested EFA interfaces, but NCCL's log {log_path} cannot be read "
                       f"({error.strerror or error}): NCCL's network cannot be confirmed", allow_tcp, rank)
    problem = efa_problem(text, str(log_path))
    if problem is None:
        return None
    return _refuse(problem, allow_tcp, rank)


def _refuse(problem: str, allow_tcp: bool, rank: int) -> str:
    if allow_tcp:
        line = f"warning: rank {rank}: {problem}; training on (--allow-tcp true)"
        print(line, file=sys.stderr, flush=True)
        return line
    raise EfaNotInUse(f"rank {rank}: {problem}; pass --allow-tcp true to train over TCP anyway")
