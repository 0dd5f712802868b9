"""Start, track and stop the stack's processes by PID.

Every process runs in its own session (so its whole group can be signalled) and has a PID file
under ``.stack/pids``.  The file also records the kernel start time of the process, so a PID that
the kernel has since reused for an unrelated process is never signalled.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .config import LOG_DIR, PID_DIR


def _start_ticks(pid: int) -> int | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces or parentheses; fields resume after the last ')'.
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[19])


def pidfile(name: str) -> Path:
    return PID_DIR / f"{name}.pid"


def logfile(name: str) -> Path:
    return LOG_DIR / f"{name}.log"


def spawn(
    name: str,
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    user: str | None = None,
) -> int:
    PID_DIR.mkdir(parents=True, exist_ok=True)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    # Not a with-block: the child must inherit the descriptor; ours is closed
    # right after Popen, the child keeps its copy.
    log = open(logfile(name), "ab", buffering=0)  # noqa: SIM115
    log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} starting {name}: {' '.join(argv)}\n".encode())
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.Popen(
        list(argv),
        cwd=str(cwd) if cwd else None,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        user=user,
    )
    log.close()
    pidfile(name).write_text(json.dumps({"pid": proc.pid, "start": _start_ticks(proc.pid), "argv": list(argv)}))
    # The Popen object is dropped on purpose: the process outlives this command.  Mark it as
    # reaped-by-someone-else so Python does not warn about it at exit.
    proc.returncode = 0
    return proc.pid


def read_pid(name: str) -> int | None:
    """The PID of a running process of ours, or None (a stale PID file is removed)."""
    path = pidfile(name)
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    pid = int(info["pid"])
    ticks = _start_ticks(pid)
    if ticks is None or (info.get("start") is not None and ticks != info["start"]) or _is_zombie(pid):
        path.unlink(missing_ok=True)
        return None
    return pid


def _is_zombie(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    if raw[raw.rindex(")") + 2] == "Z":
        # Our own child that died: reap it so it stops looking alive.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return True
    return False


def alive(name: str) -> bool:
    return read_pid(name) is not None


def stop(name: str, *, first_signal: int = signal.SIGTERM, grace: float = 20.0) -> bool:
    """Signal the process group, escalate to SIGKILL after ``grace`` seconds.  True if it ran."""
    pid = read_pid(name)
    if pid is None:
        pidfile(name).unlink(missing_ok=True)
        return False
    try:
        pgid = os.getpgid(pid)
    except ProcessLookupError:
        pgid = None
    _signal(pid, pgid, first_signal)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if _gone(pid):
            break
        time.sleep(0.1)
    else:
        _signal(pid, pgid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _gone(pid):
            time.sleep(0.1)
    if pgid is not None:
        # Children left behind in the group (e.g. a shell wrapper's java) go too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    pidfile(name).unlink(missing_ok=True)
    return True


def _signal(pid: int, pgid: int | None, sig: int) -> None:
    try:
        if pgid is not None and pgid == pid:
            os.killpg(pgid, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _gone(pid: int) -> bool:
    return _start_ticks(pid) is None or _is_zombie(pid)


def rss_bytes(name: str) -> int | None:
    """Resident memory of the process and its descendants in the same group."""
    pid = read_pid(name)
    if pid is None:
        return None
    try:
        pgid = os.getpgid(pid)
    except ProcessLookupError:
        return None
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ProcessLookupError):
            continue
    return total


def tail(path: Path, lines: int = 40) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 64 * 1024))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])
