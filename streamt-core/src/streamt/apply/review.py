"""Verifying a reviewed plan before it authorizes any change.

Three checks, each as early as its inputs exist:

* ``verify_bindings`` — after recompiling: project, environment, environment
  fingerprint and manifest checksum;
* ``verify_state`` — under the state lock, before any runtime client: the
  exact backend/store/address/serial/checksum the plan was made against;
* ``verify_replan`` — after the fresh live plan: the whole plan document
  (ordered actions with evidence, blockers, ownership requirements) must be
  byte-for-byte what was reviewed.

Every mismatch is ``E409_PLAN_STALE`` naming what drifted; nothing runs.
"""

from __future__ import annotations

from typing import Any

from streamt.artifacts import canonical_json
from streamt.errors import Codes, StreamtError
from streamt.plan.model import Plan, StateReference
from streamt.plan.planfile import ReviewedPlan, plan_document


def _stale(what: str, path: str) -> StreamtError:
    return StreamtError(
        Codes.E409_PLAN_STALE,
        f"The reviewed plan '{path}' no longer matches: {what}.",
        "Create and review a new plan (streamt plan --out PATH); never edit a plan file.",
    )


def verify_bindings(reviewed: ReviewedPlan, expected: dict[str, str]) -> None:
    """Compare the plan's project bindings with ``project_bindings`` of the recompiled project."""
    document = reviewed.document
    drifted = [key for key, value in expected.items() if document.get(key) != value]
    if drifted:
        raise _stale("the project changed (" + ", ".join(drifted) + ")", reviewed.path)


def verify_state(reviewed: ReviewedPlan, status: dict[str, Any]) -> None:
    current = StateReference.from_status(status).to_json()
    recorded = reviewed.document.get("state") or {}
    drifted = sorted(key for key in set(current) | set(recorded) if current.get(key) != recorded.get(key))
    if drifted:
        raise _stale("the ownership state changed (" + ", ".join(drifted) + ")", reviewed.path)


def verify_replan(reviewed: ReviewedPlan, fresh: Plan) -> None:
    # An extended (format-6) file is checked against the same fresh body; its replacement binding (whose
    # offsets are lower bounds, not equalities) is verified by the replacement coordinator.
    extension = reviewed.extension
    document = plan_document(fresh, extension)
    skipped = ("integrity", extension[0] if extension is not None else "integrity")
    drifted = sorted(
        key
        for key in set(document) | set(reviewed.document)
        if key not in skipped and canonical_json(document.get(key)) != canonical_json(reviewed.document.get(key))
    )
    if drifted:
        raise _stale("live infrastructure or the plan drifted (" + ", ".join(drifted) + ")", reviewed.path)
