"""Reviewed recovery of Flink jobs: each target of an interrupted apply classified exactly.

Core's ``state recovery-plan`` asks the planner (``classify_recovery``) because a Flink job is not
simply there or not: a job this apply created and then cancelled in its rollback stays listed as
CANCELED, and an upgrade passes through a stopped job and a savepoint. The deployer writes what it
learns before each step into the durable progress (``journal``): ``replacing`` (the running job
id), ``savepoint`` (the path, before anything is resubmitted from it) or, for a last-state upgrade,
``checkpoint`` (the retained checkpoint, before the cancel and again once the job is cancelled),
``submitted`` (the new job id) and ``rolled_back_to`` (the job resubmitting the old SQL from the
same savepoint or checkpoint). A crash-looping job counts as live.

* create: no live job with the name (absent, or only the CANCELED job of apply's own rollback or a
  FAILED one) -> ``prior``; one active job, the one submitted if its id was recorded -> ``candidate``
  (``observed`` only).
* update: the job it was replacing still active, or the old SQL resubmitted by the rollback ->
  ``prior``; another active job under the new name -> ``candidate`` (``observed`` only); no live
  job (stopped with its savepoint and nothing resubmitted) -> ``prior`` for ``observed`` (the
  record keeps the old definition and the next plan offers a reviewed resubmit from that
  savepoint), and for ``rolled_back`` only when the job had already stopped before (a resubmit).

Anything else (two live jobs, a job still starting or stopping, an unreadable cluster) is ``None``:
unrepresentable, and the marker stays.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import ABSENT, PRESENT, Artifact, Observation

from streamt_flink.identity import record_attributes
from streamt_flink.rest import ACTIVE, CRASH_LOOPING

PRIOR, CANDIDATE = "prior", "candidate"
LIVE = ACTIVE | {CRASH_LOOPING}  # a crash-looping job is still the one running (or about to)


def facts(evidence: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the deployer journaled for one action, later entries winning."""
    merged: dict[str, Any] = {}
    for entry in evidence:
        merged.update(entry)
    return merged


def _live(view: Any) -> dict[str, Any] | None:
    return view if isinstance(view, dict) and not view.get("history_only") else None


def classify_recovery(
    resolution: str,
    intent: dict[str, Any],
    outcomes: list[str],
    evidence: list[dict[str, Any]],
    observation: Observation,
    artifact: Artifact,
) -> str | None:
    if observation.status not in (ABSENT, PRESENT):
        return None
    spec = observation.spec or {}
    current = _live(spec) if observation.status == PRESENT else None
    legacy = _live(spec.get("legacy"))
    if any(int(v.get("live_jobs") or 0) > 1 for v in (current, legacy) if v):
        return None
    known = facts(evidence)
    if intent["action"] == "create":
        if current is None:
            return PRIOR
        submitted = known.get("submitted")
        matches = current["state"] in LIVE and submitted in (None, current["job_id"])
        return CANDIDATE if matches and resolution == "observed" else None
    if intent["action"] != "update":
        return None
    live = current or legacy
    if live is None:
        was_stopped = known.get("mode") == "resubmit"
        return PRIOR if resolution == "observed" or was_stopped else None
    if live["state"] not in LIVE:
        return None
    if "replacing" not in known or live["job_id"] in (known.get("replacing"), known.get("rolled_back_to")):
        return PRIOR  # never stopped, or running the old SQL again from the same savepoint
    if live is current and resolution == "observed" and known.get("submitted") in (None, live["job_id"]):
        return CANDIDATE
    return None


def recovery_record_attributes(
    classification: str, evidence: list[dict[str, Any]], observation: Observation, artifact: Artifact
) -> dict[str, Any] | None:
    """The ownership record's attributes for a ``candidate``: the new job, and its savepoint if any."""
    if classification != CANDIDATE or not observation.spec:
        return None
    known = facts(evidence)
    restored = known.get("savepoint") or known.get("checkpoint")
    extra = {"savepoint": restored} if restored else {}
    return record_attributes(artifact, observation.spec.get("job_id"), **extra)
