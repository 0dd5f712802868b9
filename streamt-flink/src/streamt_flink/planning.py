"""Online observation and planning of Flink SQL jobs (``flink_job`` and ``test_job``).

Observer: one ``GET /jobs/overview`` per cluster; a job is found by its name, which the compiler
sets with ``SET 'pipeline.name'`` (``spec.job_name``). The observation spec is
``{name, state, job_id, live_jobs}``. A cluster that cannot be read fails the plan (``E406``): an
unreadable cluster is never "absent". A managed job whose cluster has no ``sql_gateway_url`` fails
at plan time with ``E206`` (before any request), so apply refuses before its first mutation.

Planner (Flink cannot return the SQL a job runs, so "same" means "the ownership record holds this
artifact's checksum"):

* absent -> ``create``;
* one live job in RUNNING/CREATED/RESTARTING/INITIALIZING/RECONCILING, same checksum -> ``noop``;
* same, different checksum -> ``update`` + ``flink_job_update`` blocker (E417 at apply, never
  forceable: the only path is cancel-and-resubmit, which is not savepoint-safe);
* no live job but a FAILED/CANCELED/FINISHED one (or a job FAILING/CANCELLING/SUSPENDED) ->
  ``update`` + ``flink_job_not_running`` blocker: resubmitting would start from empty state, an
  operator must decide (cancel/restore from a savepoint, or rename the job);
* two or more live jobs with the name -> ``update`` + ``flink_job_duplicate`` blocker;
* present without an ownership record -> core's ownership requirement (``E410``), never a takeover.
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt.artifacts import KIND_FLINK_JOB, KIND_TEST_JOB, Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import ABSENT, CREATE, NOOP, PRESENT, UPDATE, Action, Observation, SafetyBlocker

from streamt_flink.rest import ACTIVE, TERMINAL, FlinkRestClient, LiveJob

KINDS = (KIND_FLINK_JOB, KIND_TEST_JOB)


def cluster_config(runtime: Any, artifact: Artifact) -> tuple[str, Any]:
    name = artifact.spec.get("cluster")
    flink = runtime.flink
    config = flink.clusters.get(name) if flink is not None and name else None
    if config is None:
        raise StreamtError(
            Codes.E202_FLINK_REQUIRED,
            f"Flink job '{artifact.identity}' runs on cluster '{name}', which runtime.flink does not declare.",
            "Declare the cluster under runtime.flink.clusters (or set runtime.flink.default).",
        )
    return str(name), config


def _url(runtime: Any, artifact: Artifact, key: str, code: Any, why: str) -> str:
    name, config = cluster_config(runtime, artifact)
    value = getattr(config, key)
    if not value:
        raise StreamtError(
            code, f"Flink cluster '{name}' has no {key}; {why}.", f"Set runtime.flink.clusters.{name}.{key}."
        )
    return str(value)


def rest_client(runtime: Any, artifact: Artifact) -> FlinkRestClient:
    why = "streamt reads job states from the Flink REST API"
    return FlinkRestClient(_url(runtime, artifact, "rest_url", Codes.E208_MISSING_CONFIG, why))


def gateway_url(runtime: Any, artifact: Artifact) -> str:
    why = "streamt submits Flink SQL through the SQL Gateway"
    return _url(runtime, artifact, "sql_gateway_url", Codes.E206_SQL_GATEWAY_NOT_CONFIGURED, why)


def select_job(jobs: list[LiveJob], name: str) -> Observation:
    """The observation for job ``name``: the live job, else the most recent terminal one, else absent."""
    named = [j for j in jobs if j.name == name]
    if not named:
        return Observation(ABSENT)
    live = [j for j in named if j.state not in TERMINAL]
    pool = live or named
    chosen = max(pool, key=lambda j: (j.start_time, j.job_id))
    return Observation(PRESENT, {"name": name, "state": chosen.state, "job_id": chosen.job_id, "live_jobs": len(live)})


@attrs.define
class FlinkJobObserver:
    runtime: Any
    kinds = KINDS

    def observe(self, artifacts: list[Artifact]) -> dict[str, Observation]:
        by_url: dict[str, tuple[FlinkRestClient, list[Artifact]]] = {}
        for artifact in artifacts:
            client = rest_client(self.runtime, artifact)
            if artifact.ownership != "external":
                gateway_url(self.runtime, artifact)  # E206 before any request: apply could not submit it
            by_url.setdefault(client.url, (client, []))[1].append(artifact)
        observed: dict[str, Observation] = {}
        for client, group in by_url.values():
            jobs = client.jobs()
            for artifact in group:
                observed[artifact.identity] = select_job(jobs, job_name(artifact))
        return observed

    def runtime_status(self, artifacts: list[Artifact]) -> dict[str, dict[str, Any]]:
        """For ``status``: each present job's Flink state (``RUNNING`` is the only healthy one)."""
        out: dict[str, dict[str, Any]] = {}
        for identity, observation in self.observe(artifacts).items():
            if observation.status == PRESENT and observation.spec:
                state = observation.spec["state"]
                out[identity] = {"state": state, "healthy": state == "RUNNING", "job_id": observation.spec["job_id"]}
        return out


def job_name(artifact: Artifact) -> str:
    return str(artifact.spec.get("job_name") or artifact.identity)


class FlinkJobPlanner:
    kinds = KINDS

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status == ABSENT:
            from streamt_flink.placeholders import require_resolvable

            if not observation.assumed:  # offline plans need no secrets
                require_resolvable(artifact)  # online: before any mutation, not halfway through apply
            cluster = artifact.spec.get("cluster")
            return [Action.for_artifact(CREATE, artifact, f"new job on cluster {cluster}", observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan Flink job {artifact.identity} from a {observation.status} observation")
        live = observation.spec or {}
        state = str(live.get("state"))
        if int(live.get("live_jobs") or 0) > 1:
            return self._blocked(
                artifact,
                observation,
                "flink_job_duplicate",
                f"{live.get('live_jobs')} live Flink jobs are named '{job_name(artifact)}'; streamt cannot tell "
                "which one it manages.",
            )
        if state not in ACTIVE:
            return self._blocked(
                artifact,
                observation,
                "flink_job_not_running",
                f"Flink job '{job_name(artifact)}' is {state}; resubmitting it would start without its state. "
                "Restore it from a savepoint yourself, or rename the job.",
            )
        recorded = getattr(record, "artifact_checksum", None)
        if record is None or recorded == artifact.checksum:
            # No record only reaches here from `status` (plan turns it into an ownership requirement).
            return [Action.for_artifact(NOOP, artifact, state, observation)]
        return self._blocked(
            artifact,
            observation,
            "flink_job_update",
            f"Flink job '{job_name(artifact)}' is {state} with another definition; updating it needs "
            "cancel-and-resubmit, which is not savepoint-safe.",
            changes={"artifact_checksum": {"from": recorded, "to": artifact.checksum}},
        )

    @staticmethod
    def _blocked(artifact: Artifact, observation: Observation, reason: str, message: str, **evidence: Any) -> list[Any]:
        state = (observation.spec or {}).get("state")
        return [
            Action.for_artifact(UPDATE, artifact, f"{state}: {reason}", observation, **evidence),
            SafetyBlocker(reason, artifact.kind, artifact.identity, message),
        ]
