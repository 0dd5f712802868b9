"""A small client for the Flink JobManager REST API: the job list, restore points, stop, cancel.

Only what online plan, status, apply and rollback need: ``GET /jobs/overview`` (every job's
``jid``, ``name`` and ``state`` in one call), ``GET /jobs/<jid>/checkpoints`` (the last retained
savepoint or checkpoint of a job), ``GET /jobs/<jid>/checkpoints/config`` (whether a cancel keeps
it), ``GET /jobs/<jid>/exceptions`` (why a job keeps failing), ``POST /jobs/<jid>/stop`` and
``GET /jobs/<jid>/savepoints/<trigger>`` (stop-with-savepoint) and ``PATCH /jobs/<jid>?mode=cancel``.
Every request has a bounded timeout. A read that fails is ``E406_CONNECTION_REFUSED`` (never "no
jobs": an unreadable cluster must not look empty). A write (stop, cancel) is classified by the
shared ``streamt.sdk`` HTTP helper: a ``StreamtError`` only when the request provably changed
nothing (never sent, or refused with a ``4xx``: ``E404`` for credentials, else ``E407``), and
``MaybeSent`` when it may have reached the cluster (a read timeout, ``408``, a ``5xx``): its
outcome is unknown.
"""

from __future__ import annotations

import time
from typing import Any

import attrs

# The bounded HTTP layer (and with it `requests`) is reached through `sdk.` when a request is made:
# planning imports this module's job states and sends nothing.
from streamt import sdk
from streamt.sdk import Codes, MaybeSent, StreamtError, code_for_status, never_sent, refused_before_change

CONNECT_TIMEOUT_SECONDS = 5.0
STATS_SETTLE_SECONDS = 5.0  # longer than Flink's default checkpoint-statistics cache (3 s)
DEADLINE_SECONDS = 20.0  # the total deadline of one request (the bounded HTTP layer of streamt.sdk)
SERVICE, SETTING = "The Flink REST API", "the cluster's rest_url"
_NOT_JSON = object()  # an answer that is not JSON: what it means depends on the request

# Flink's JobStatus values. Globally terminal jobs stay listed (history) until they expire.
TERMINAL = frozenset({"FAILED", "CANCELED", "FINISHED"})
# A job in one of these states is (or is about to be) running: an unchanged declaration is a no-op.
# RESTARTING is not among them: the observer reports such a job as CRASH_LOOPING (``failures``).
ACTIVE = frozenset({"RUNNING", "CREATED", "INITIALIZING", "RECONCILING"})
# streamt's own state for a job that keeps failing and restarting (never a Flink JobStatus).
CRASH_LOOPING = "CRASH_LOOPING"


@attrs.frozen
class LiveJob:
    job_id: str
    name: str
    state: str
    start_time: int = 0


def _unreachable(what: str) -> StreamtError:
    return StreamtError(
        Codes.E406_CONNECTION_REFUSED,
        f"The Flink REST API did not answer ({what}).",
        "Check that the cluster's rest_url is reachable and the JobManager is running; nothing was assumed absent.",
    )


@attrs.define
class FlinkRestClient:
    url: str
    _http: Any = attrs.field(default=None, repr=False)

    def _request(
        self, method: str, path: str, what: str, body: dict[str, Any] | None = None, missing_ok: bool = False
    ) -> Any:
        import requests

        if self._http is None:
            self._http = sdk.bounded_session(
                DEADLINE_SECONDS, connect_timeout=CONNECT_TIMEOUT_SECONDS, provider="flink_rest"
            )
        try:
            response = self._http.request(method, self.url.rstrip("/") + path, json=body)
            payload = sdk.json_body(response.content)
        except requests.exceptions.RequestException as exc:
            if method != "GET" and not never_sent(exc):
                raise MaybeSent(type(exc).__name__) from None
            raise sdk.bounded_error(exc, SERVICE, SETTING) or _unreachable(what) from None
        except ValueError:
            payload = _NOT_JSON
        status = response.status_code
        if missing_ok and status == 404:
            return None
        if status >= 400:
            if method != "GET" and not refused_before_change(status):
                raise MaybeSent(f"HTTP{status}")
            raise StreamtError(
                Codes.E406_CONNECTION_REFUSED if method == "GET" else code_for_status(status),
                f"The Flink REST API refused to {what} (HTTP {status}).",
                "Check that rest_url points at the Flink JobManager REST endpoint.",
            )
        if payload is None:
            return {}
        if payload is _NOT_JSON:
            if method != "GET":  # accepted, and the answer cannot say what happened
                raise MaybeSent("UnreadableAnswer")
            raise StreamtError(
                Codes.E406_CONNECTION_REFUSED,
                f"The Flink REST API answered ({what}) with something that is not JSON.",
                "Check that rest_url points at the Flink JobManager REST endpoint, not the SQL Gateway.",
            )
        return payload

    def jobs(self) -> list[LiveJob]:
        """Every job the cluster lists, in one ``GET /jobs/overview``."""
        body = self._request("GET", "/jobs/overview", "list jobs")
        jobs = body.get("jobs") if isinstance(body, dict) else None
        if not isinstance(jobs, list):
            raise StreamtError(
                Codes.E406_CONNECTION_REFUSED,
                "The Flink REST API answered the job list without a 'jobs' list.",
                "Check that rest_url points at the Flink JobManager REST endpoint.",
            )
        return [
            LiveJob(str(j.get("jid")), str(j.get("name")), str(j.get("state")), int(j.get("start-time") or 0))
            for j in jobs
            if isinstance(j, dict)
        ]

    def job_state(self, job_id: str) -> str | None:
        """The state of one job; ``None`` when the cluster does not know the id."""
        for job in self.jobs():
            if job.job_id == job_id:
                return job.state
        return None

    def cancel(self, job_id: str) -> None:
        """Ask the cluster to cancel exactly ``job_id`` (asynchronous: poll ``job_state``).

        ``StreamtError`` when the cluster provably did nothing, ``MaybeSent`` when it may have.
        """
        self._request("PATCH", f"/jobs/{job_id}?mode=cancel", "cancel a job")

    def restore_point(self, job_id: str) -> str | None:
        """The newest retained savepoint or checkpoint of ``job_id`` (its external path), else ``None``.

        A job's checkpoint statistics stay readable while the cluster lists it; the newest by id of
        ``latest.savepoint``, ``latest.completed`` and the completed ``history`` entries that are
        not discarded wins (Flink's counter orders savepoints and checkpoints alike). The REST API
        caches these statistics (``rest.cache.checkpoint-statistics.timeout``, 3 s by default): an
        answer whose completed checkpoints are all discarded (seen right after a job failed: the
        one that subsumed them is not in it yet) is read again until ``STATS_SETTLE_SECONDS``.
        """
        deadline = time.monotonic() + STATS_SETTLE_SECONDS
        while True:
            path, stale = self._restore_point(job_id)
            if path is not None or not stale or time.monotonic() >= deadline:
                return path
            time.sleep(0.5)

    def _restore_point(self, job_id: str) -> tuple[str | None, bool]:
        """``(path, stale)``: ``stale`` when completed checkpoints are listed and every one is discarded."""
        body = self._request("GET", f"/jobs/{job_id}/checkpoints", "read a job's checkpoints", missing_ok=True)
        latest = body.get("latest") if isinstance(body, dict) else None
        if not isinstance(latest, dict):
            return None, False
        # `latest` can lag behind `history`: a checkpoint that completed while the job failed is
        # listed COMPLETED in the history while `latest.completed` still names the one it subsumed.
        history = [c for c in body.get("history") or () if isinstance(c, dict) and c.get("status") == "COMPLETED"]
        listed = [c for c in (latest.get("savepoint"), latest.get("completed"), *history) if isinstance(c, dict)]
        found = [c for c in listed if c.get("external_path") and not c.get("discarded")]
        if not found:
            return None, any(c.get("discarded") for c in listed)
        return str(max(found, key=lambda c: int(c.get("id") or 0))["external_path"]), False

    def exceptions(self, job_id: str) -> Any:
        """The job's newest exception-history entry (``GET /jobs/<jid>/exceptions?maxExceptions=1``)."""
        path = f"/jobs/{job_id}/exceptions?maxExceptions=1"
        return self._request("GET", path, "read a job's exceptions", missing_ok=True)

    def retains_on_cancel(self, job_id: str) -> bool:
        """Whether cancelling ``job_id`` keeps its externalized checkpoints (``RETAIN_ON_CANCELLATION``)."""
        body = self._request("GET", f"/jobs/{job_id}/checkpoints/config", "read a job's checkpointing", missing_ok=True)
        kept = body.get("externalization") if isinstance(body, dict) else None
        return isinstance(kept, dict) and kept.get("enabled") is True and kept.get("delete_on_cancellation") is False

    def stop_with_savepoint(self, job_id: str) -> str:
        """Trigger stop-with-savepoint without draining (the job keeps its event time); the trigger id.

        The savepoint goes to the cluster's configured savepoint directory
        (``execution.checkpointing.savepoint-dir``). ``StreamtError`` when the cluster provably did
        nothing, ``MaybeSent`` when the stop may be under way.
        """
        body = self._request("POST", f"/jobs/{job_id}/stop", "stop a job with a savepoint", {"drain": False})
        trigger = body.get("request-id") if isinstance(body, dict) else None
        if not trigger:  # accepted without a trigger to follow: the stop may be under way
            raise MaybeSent("NoTriggerId")
        return str(trigger)

    def savepoint_status(self, job_id: str, trigger: str) -> tuple[str, str | None]:
        """``("IN_PROGRESS", None)``, ``("COMPLETED", location)`` or ``("FAILED", None)``."""
        body = self._request("GET", f"/jobs/{job_id}/savepoints/{trigger}", "read a savepoint's progress")
        status = (body.get("status") or {}).get("id") if isinstance(body, dict) else None
        operation = body.get("operation") if isinstance(body, dict) else None
        if status != "COMPLETED":
            return "IN_PROGRESS", None
        location = operation.get("location") if isinstance(operation, dict) else None
        return ("COMPLETED", str(location)) if location else ("FAILED", None)
