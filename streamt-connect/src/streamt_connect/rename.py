"""Renaming an owned connector from its legacy (model) name to its scoped name, offsets included.

A sink's consumer group is ``connect-<name>``, so a plain rename would read its topics again from
the start. The rename therefore moves the committed offsets with Connect's offsets API:

1. ``PUT /connectors/<old>/stop`` and wait until it is ``STOPPED`` with no task (its tasks commit
   on shutdown);
2. ``GET /connectors/<old>/offsets``;
3. ``POST /connectors`` of the new name with ``initial_state: STOPPED``;
4. ``PATCH /connectors/<new>/offsets`` with those offsets (its group has no member yet);
5. ``PUT /connectors/<new>/resume``, then ``DELETE /connectors/<old>``.

Before step 3 nothing new exists: a failure resumes the old connector and is ``failed`` (or
``unknown`` when even the resume cannot be confirmed). From step 3 on, a failure is ``unknown``:
both connectors may exist, which the next plan blocks on (``connector_rename_incomplete``).
A 409 (the worker group is rebalancing) is asked again a bounded number of times.
"""

from __future__ import annotations

import time
from typing import Any

from streamt.sdk import DONE, FAILED, UNKNOWN, Outcome, StreamtError

from streamt_connect.client import ConnectClient, MaybeSent, connector_path
from streamt_connect.live import config_fingerprint

ATTEMPTS, PAUSE_SECONDS, STOP_SECONDS = 10, 0.5, 30.0


class Refused(Exception):
    """A step the worker did not do (an HTTP answer other than the expected ones)."""


def _call(client: ConnectClient, method: str, path: str, body: Any, expected: tuple[int, ...]) -> Any:
    for _ in range(ATTEMPTS):
        status, payload = client.request(method, path, body)
        if status in expected:
            return payload
        if status != 409:
            raise Refused(f"HTTP{status}")
        time.sleep(PAUSE_SECONDS)
    raise Refused("HTTP409")


def _await_stopped(client: ConnectClient, name: str) -> None:
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        status, payload = client.request("GET", connector_path(name, "/status"))
        state = ((payload or {}).get("connector") or {}).get("state") if isinstance(payload, dict) else None
        if status == 200 and state == "STOPPED" and not payload.get("tasks"):
            return
        time.sleep(PAUSE_SECONDS)
    raise Refused("NotStopped")


def rename(client: ConnectClient, old: str, new: str, config: dict[str, str], reviewed_fingerprint: str) -> Outcome:
    """Move ``old`` to ``new`` (with ``config``) as described above; exact outcomes only."""
    try:
        status, live = client.get(connector_path(old))
    except MaybeSent:
        return Outcome(FAILED, "Unreachable")
    except StreamtError as exc:
        return Outcome(FAILED, exc.diagnostics[0].code.code)
    if status != 200 or not isinstance(live, dict) or not isinstance(live.get("config"), dict):
        return Outcome(FAILED, "PreimageChanged")
    if config_fingerprint(live["config"]) != reviewed_fingerprint:
        return Outcome(FAILED, "PreimageChanged")  # nothing was sent
    try:
        _call(client, "PUT", connector_path(old, "/stop"), None, (202, 204))
        _await_stopped(client, old)
        offsets = _call(client, "GET", connector_path(old, "/offsets"), None, (200,))
    except (Refused, MaybeSent, StreamtError) as exc:
        return _resumed(client, old, _why(exc))
    moved = [o for o in (offsets or {}).get("offsets") or () if isinstance(o, dict)]
    try:
        _call(client, "POST", "/connectors", {"name": new, "config": config, "initial_state": "STOPPED"}, (201,))
        if moved:
            _call(client, "PATCH", connector_path(new, "/offsets"), {"offsets": moved}, (200,))
        _call(client, "PUT", connector_path(new, "/resume"), None, (202, 204))
        _call(client, "DELETE", connector_path(old), None, (200, 204))
    except (Refused, MaybeSent, StreamtError) as exc:
        return Outcome(UNKNOWN, f"RenameIncomplete:{_why(exc)}")
    return Outcome(DONE, attributes={"config_fingerprint": config_fingerprint(config)})


def _why(exc: Exception) -> str:
    """An error name for the outcome, never a message (a worker's may quote configuration)."""
    if isinstance(exc, StreamtError):
        return exc.diagnostics[0].code.code
    return str(exc) if isinstance(exc, Refused) else type(exc).__name__


def _resumed(client: ConnectClient, old: str, why: str) -> Outcome:
    """Undo the stop: ``failed`` once the old connector is asked to run again, else ``unknown``."""
    try:
        _call(client, "PUT", connector_path(old, "/resume"), None, (202, 204))
    except (Refused, MaybeSent, StreamtError):
        return Outcome(UNKNOWN, f"StoppedNotResumed:{why}")
    return Outcome(FAILED, why)
