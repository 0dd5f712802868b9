"""Who a Flink job is: its names, its definition checksum, and what its ownership record keeps.

``pipeline.name`` is ``<project>/<env>/<job>`` since project-scoped names; a job deployed before
runs under its job name alone (the *legacy* name). The definition is the artifact's spec without
the upgrade policy (``lifecycle``): changing ``flink.upgrade_mode`` is not a change of the job.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Artifact, canonical_json, sha256_checksum

from streamt_flink.ddl import set_statement
from streamt_flink.job import DELETED, RETAINED, RETENTION


def job_name(artifact: Artifact) -> str:
    return str(artifact.spec.get("job_name") or artifact.identity)


def pipeline_of(artifact: Artifact) -> str:
    """The ``pipeline.name`` the artifact submits (specs compiled before it existed: the job name)."""
    return str(artifact.spec.get("pipeline_name") or job_name(artifact))


def definition(artifact: Artifact, running_as: str | None = None) -> dict[str, Any]:
    """The job as Flink runs it: the spec without the upgrade policy, named ``running_as``."""
    spec = {k: v for k, v in artifact.spec.items() if k != "lifecycle"}
    if running_as is not None and running_as != pipeline_of(artifact):
        spec = _renamed(spec, pipeline_of(artifact), running_as)
    return spec


def definition_checksum(artifact: Artifact, running_as: str | None = None) -> str:
    return sha256_checksum(canonical_json(definition(artifact, running_as)))


def statements_for(artifact: Artifact, running_as: str | None = None) -> list[str]:
    return list(definition(artifact, running_as)["statements"])


def _renamed(spec: dict[str, Any], name: str, running_as: str) -> dict[str, Any]:
    old, new = set_statement("pipeline.name", name), set_statement("pipeline.name", running_as)
    out = {**spec, "statements": [new if s == old else s for s in spec["statements"]]}
    if "settings" in spec:
        out["settings"] = {**spec["settings"], "pipeline.name": running_as}
    return out


def delete_on_cancel_checksum(artifact: Artifact, running_as: str | None = None) -> str | None:
    """The definition checksum this artifact had when streamt compiled ``DELETE_ON_CANCELLATION``.

    Jobs deployed before last-state upgrades run with it: the same SQL is still the same job (no
    upgrade is planned for the retention alone), and the observer reads what the running job keeps.
    """
    spec = definition(artifact, running_as)
    if (spec.get("settings") or {}).get(RETENTION) != RETAINED:
        return None
    kept, deleted = set_statement(RETENTION, RETAINED), set_statement(RETENTION, DELETED)
    spec = {**spec, "settings": {**spec["settings"], RETENTION: DELETED}}
    spec["statements"] = [deleted if s == kept else s for s in spec["statements"]]
    return sha256_checksum(canonical_json(spec))


def legacy_checksum(artifact: Artifact) -> str:
    """The checksum this artifact had before project-scoped names (and checkpoint retention), for old records."""
    spec = _renamed(definition(artifact), pipeline_of(artifact), job_name(artifact))
    spec.pop("pipeline_name", None)
    if RETENTION in spec.get("settings", {}):
        retention = set_statement(RETENTION, spec["settings"][RETENTION])
        spec["settings"] = {k: v for k, v in spec["settings"].items() if k != RETENTION}
        spec["statements"] = [s for s in spec["statements"] if s != retention]
    return sha256_checksum(canonical_json(spec))


def record_attributes(artifact: Artifact, job_id: str | None, running_as: str | None = None, **extra: Any) -> dict:
    """What the ownership record keeps about a submitted job: its name, definition, id, statements."""
    name = running_as or pipeline_of(artifact)
    return {
        "definition": definition_checksum(artifact, name),
        "job_id": job_id,
        "pipeline_name": name,
        "statements": statements_for(artifact, name),
        **extra,
    }
