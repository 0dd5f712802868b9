"""What every service module provides, and the shared run context."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from . import ports, procs
from .config import STATE_DIR, STATE_FILE


class Context:
    """Persistent stack state (ports, ids) shared by the service threads of one command."""

    def __init__(self, log: Callable[[str], None] = print):
        self.log = log
        self._lock = threading.RLock()
        try:
            self.state: dict[str, Any] = json.loads(STATE_FILE.read_text())
        except (OSError, ValueError):
            self.state = {}
        self.state.setdefault("ports", {})

    def port(self, key: str, *, fresh: bool) -> int:
        """The port for ``key``; with ``fresh`` (service about to start) re-check it is free."""
        with self._lock:
            known = self.state["ports"].get(key)
            if not fresh and known:
                return int(known)
            port = ports.pick(known)
            self.state["ports"][key] = port
            self.save()
            return port

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self.state.get(key, default)

    def set(self, key: str, value: Any) -> None:
        with self._lock:
            self.state[key] = value
            self.save()

    def save(self) -> None:
        with self._lock:
            STATE_DIR.mkdir(parents=True, exist_ok=True)
            tmp = STATE_FILE.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.state, indent=2, sort_keys=True))
            tmp.replace(STATE_FILE)


class Service:
    name: str = ""
    #: process names (PID files / log files), in start order
    processes: tuple[str, ...] = ()
    #: services that must be ready before this one starts
    needs: tuple[str, ...] = ()
    #: seconds to wait for readiness after start
    start_timeout: float = 120.0
    #: how the first stop signal is sent (PostgreSQL wants SIGINT for a fast shutdown)
    stop_signal: int = 15

    def fetch(self, ctx: Context) -> None:
        """Download/resolve artifacts (idempotent, cached)."""

    def start(self, ctx: Context) -> None:
        raise NotImplementedError

    def probe(self, ctx: Context) -> str:
        """Raise if not ready; return a short description of what answered."""
        raise NotImplementedError

    def probe_started(self, ctx: Context) -> str:
        """Readiness right after start, before ``after_ready`` ran (default: ``probe``)."""
        return self.probe(ctx)

    def after_ready(self, ctx: Context) -> None:
        """One-off configuration that needs the running service (idempotent)."""

    def endpoints(self, ctx: Context) -> dict[str, str]:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------------
    def running(self) -> bool:
        return all(procs.alive(p) for p in self.processes)

    def any_running(self) -> bool:
        return any(procs.alive(p) for p in self.processes)

    def dead_process(self) -> str | None:
        for p in self.processes:
            if procs.pidfile(p).exists() and not procs.alive(p):
                return p
        return None

    def stop(self) -> list[str]:
        stopped = []
        for p in reversed(self.processes):
            if procs.stop(p, first_signal=self.stop_signal):
                stopped.append(p)
        return stopped

    def rss(self) -> int:
        return sum(procs.rss_bytes(p) or 0 for p in self.processes)
