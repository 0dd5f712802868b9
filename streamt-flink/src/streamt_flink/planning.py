"""Online observation and planning of Flink SQL jobs (``flink_job`` and ``test_job``).

Observer: one ``GET /jobs/overview`` per cluster, plus one checkpoint read for each job that is
no longer running (its last retained savepoint or checkpoint). A job is found by its
``pipeline.name``, ``<project>/<env>/<job>`` (``spec.pipeline_name``); the job name alone (the
form before project-scoped names) is reported beside it as ``legacy``, and only an ownership
record of this project ever makes the planner look at it. A cluster that cannot be read fails the
plan (``E406``). A managed job whose cluster has no ``sql_gateway_url`` fails at plan time with
``E206``, before any request.

Observation spec: ``{name, state, job_id, live_jobs, restore, history_only}`` for the job with the
project-scoped name (the live one, else the newest in the cluster's history); ``restore`` is the
retained savepoint/checkpoint of a stopped job; ``history_only`` says no job with the name is live,
so a cancelled leftover without a record is no ownership question. Status is ``absent`` when the
name is not listed (``spec`` may still carry ``legacy``). A live job costs one exceptions read: one
that is RESTARTING or failed within ``RECENT_FAILURE_MS`` is ``CRASH_LOOPING`` with its root
``cause`` (``failures``), and ``retained_checkpoint`` says whether a cancel keeps a checkpoint to
resubmit from (read for crash-looping jobs and ``last-state`` models).

Planner (Flink cannot return the SQL a job runs, so "same" means the record's definition checksum,
``definition_checksum``, which leaves out the upgrade policy):

* nothing live with a record, or no job at all -> ``create``;
* one active job, same definition -> ``noop`` (a legacy-named job's record is migrated);
* one active job, another definition -> by ``flink.upgrade_mode``: ``blocked`` -> blocker
  ``flink_job_update``; ``savepoint`` -> a reviewed ``update`` (stop-with-savepoint, resubmit from
  it) unless a state-compatibility check objects; ``last-state`` -> the same from the latest
  retained checkpoint (cancel, resubmit from it); ``stateless`` -> a reviewed ``update`` that needs
  ``--force`` (cancel, start from scratch);
* a CRASH_LOOPING job: unchanged -> ``noop`` naming the cause; changed -> never a savepoint (a
  failing job cannot take one): ``savepoint``/``last-state`` -> ``last-state`` when it retains a
  checkpoint, else ``stateless`` with ``--force``; ``blocked`` -> the blocker, naming last-state;
* a stopped owned job (FAILED/CANCELED/FINISHED) -> a reviewed ``update`` resubmitting it from
  its retained savepoint/checkpoint, or from scratch with ``--force`` when there is none;
* FAILING/CANCELLING/SUSPENDED -> blocker ``flink_job_not_running`` (wait for it to settle);
* two or more live jobs with the name -> blocker ``flink_job_duplicate``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CREATE,
    KIND_FLINK_JOB,
    KIND_TEST_JOB,
    NOOP,
    PRESENT,
    UPDATE,
    Action,
    Advice,
    AppliedRecord,
    Artifact,
    Codes,
    Observation,
    SafetyBlocker,
    StreamtError,
    blocked_update,
)

from streamt_flink.compat import incompatibilities
from streamt_flink.config import flink_runtime
from streamt_flink.failures import describe, root_cause
from streamt_flink.identity import (
    definition_checksum,
    delete_on_cancel_checksum,
    job_name,
    legacy_checksum,
    pipeline_of,
    record_attributes,
    statements_for,
)
from streamt_flink.placeholders import project_variables, require_resolvable
from streamt_flink.recovery import classify_recovery, recovery_record_attributes
from streamt_flink.rest import ACTIVE, CRASH_LOOPING, TERMINAL, FlinkRestClient, LiveJob

KINDS = (KIND_FLINK_JOB, KIND_TEST_JOB)
_GROUP = re.compile(r"'properties\.group\.id'\s*=\s*'([^']*)'")
_STARTUP = re.compile(r"'scan\.startup\.mode'\s*=\s*'([^']*)'")
SAVEPOINT, STATELESS, RESUBMIT, LAST_STATE = "savepoint", "stateless", "resubmit", "last-state"
# A live job whose newest failure is younger than this is crash-looping (Flink's exponential
# restart delay tops out at one minute: a looping job fails again well within it).
RECENT_FAILURE_MS = 10 * 60 * 1000


def cluster_config(runtime: Any, artifact: Artifact) -> tuple[str, Any]:
    name = artifact.spec.get("cluster")
    flink = flink_runtime(runtime)
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
    """The observation for ``name``: the live job, else the most recent terminal one, else absent."""
    view = _view(jobs, name)
    return Observation(PRESENT, view) if view is not None else Observation(ABSENT)


def _view(jobs: list[LiveJob], name: str) -> dict[str, Any] | None:
    named = [j for j in jobs if j.name == name]
    if not named:
        return None
    live = [j for j in named if j.state not in TERMINAL]
    chosen = max(live or named, key=lambda j: (j.start_time, j.job_id))
    view: dict[str, Any] = {"name": name, "state": chosen.state, "job_id": chosen.job_id, "live_jobs": len(live)}
    if not live:
        view["history_only"] = True
    return view


@attrs.define
class FlinkJobObserver:
    runtime: Any
    kinds = KINDS

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        by_url: dict[str, tuple[FlinkRestClient, list[Artifact]]] = {}
        for artifact in artifacts:
            client = rest_client(self.runtime, artifact)
            if artifact.ownership != "external":
                gateway_url(self.runtime, artifact)  # E206 before any request: apply could not submit it
                # A missing variable (`.env`, then the process) fails the plan (E502), not apply halfway.
                require_resolvable(artifact, project_variables(self.runtime))
            by_url.setdefault(client.url, (client, []))[1].append(artifact)
        observed: dict[str, Observation] = {}
        for client, group in by_url.values():
            jobs = client.jobs()
            for artifact in group:
                observed[artifact.identity] = self._observe(client, jobs, artifact)
        return observed

    @staticmethod
    def _observe(client: FlinkRestClient, jobs: list[LiveJob], artifact: Artifact) -> Observation:
        views = {"current": _view(jobs, pipeline_of(artifact))}
        if job_name(artifact) != pipeline_of(artifact):
            views["legacy"] = _view(jobs, job_name(artifact))
        for view in views.values():
            if view is not None and view["state"] in TERMINAL:
                view["restore"] = client.restore_point(view["job_id"])
            elif view is not None:
                _health(client, view, artifact)
        current, legacy = views["current"], views.get("legacy")
        if current is None:
            return Observation(ABSENT, {"legacy": legacy} if legacy else None)
        return Observation(PRESENT, {**current, "legacy": legacy} if legacy else current)

    def runtime_status(self, artifacts: Sequence[Artifact]) -> dict[str, dict[str, Any]]:
        """For ``status``: each present job's Flink state (``RUNNING`` is the only healthy one).

        A crash-looping job is ``CRASH_LOOPING`` with its root ``cause`` and that cause as one line
        (``reason``), which the text outputs show.

        ``terminal`` marks a job that stopped (FAILED/CANCELED/FINISHED): status shows that state
        rather than the DRIFT or MISSING its planned resubmit would otherwise read as.
        """
        out: dict[str, dict[str, Any]] = {}
        for identity, observation in self.observe(artifacts).items():
            if observation.status == PRESENT and observation.spec:
                state = observation.spec["state"]
                out[identity] = {"state": state, "healthy": state == "RUNNING", "job_id": observation.spec["job_id"]}
                if state in TERMINAL:
                    out[identity]["terminal"] = True
                if state == CRASH_LOOPING:  # the cause, structured and as one line for the text outputs
                    cause = observation.spec.get("cause")
                    out[identity].update({"cause": cause, "reason": describe(cause)})
        return out


def _health(client: FlinkRestClient, view: dict[str, Any], artifact: Artifact) -> None:
    """Mark a live job ``CRASH_LOOPING`` (with its root cause) when it is RESTARTING or failed lately.

    The cause's timestamp stays out of the view: a reviewed plan binds the observation, and the
    same poison record fails the same way on every attempt. Whether a cancel keeps a checkpoint to
    restore (``retained_checkpoint``) is read only where a last-state upgrade could use it.
    """
    job_id = str(view["job_id"])
    cause = root_cause(client.exceptions(job_id), _columns(artifact))
    failed_at = int(cause.pop("timestamp")) if cause else 0
    if view["state"] == "RESTARTING" or failed_at >= time.time() * 1000 - RECENT_FAILURE_MS:
        view["state"] = CRASH_LOOPING
        if cause:
            view["cause"] = cause
    if view["state"] == CRASH_LOOPING or mode_of(artifact) == LAST_STATE:
        view["retained_checkpoint"] = client.restore_point(job_id) is not None and client.retains_on_cancel(job_id)


def _columns(artifact: Artifact) -> list[str]:
    """The job's sink columns: quoted in Flink's messages, and no record data."""
    sink = artifact.spec.get("sink") or {}
    return [str(c.get("name")) for c in sink.get("columns") or () if isinstance(c, dict)]


def mode_of(artifact: Artifact) -> str:
    """The job's ``flink.upgrade_mode`` (test jobs and specs compiled before it: ``blocked``)."""
    return str((artifact.spec.get("lifecycle") or {}).get("upgrade_mode") or "blocked")


def details(artifact: Artifact) -> str:
    parallelism = (artifact.spec.get("settings") or {}).get("parallelism.default")
    return f"parallelism: {parallelism}" if parallelism else "parallelism: cluster default"


class FlinkJobPlanner:
    kinds = KINDS
    classify_recovery = staticmethod(classify_recovery)
    recovery_record_attributes = staticmethod(recovery_record_attributes)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status not in (ABSENT, PRESENT):
            raise ValueError(f"cannot plan Flink job {artifact.identity} from a {observation.status} observation")
        view, running_as, migrating = _owned_view(artifact, observation, record)
        legacy = (observation.spec or {}).get("legacy")
        if legacy is not None and (view is not legacy):
            # Not this project's job: kept out of the evidence, so a reviewed plan never binds it.
            spec = {k: v for k, v in (observation.spec or {}).items() if k != "legacy"}
            observation = Observation(observation.status, spec or None, observation.assumed)
        if view is None and record is not None:  # owned, but the cluster no longer lists any such job
            gone = {"state": "ABSENT", "job_id": None, "restore": _attributes(record).get("savepoint")}
            return self._resubmit(
                artifact, observation, record, gone, running_as, _unchanged(artifact, record, running_as)
            )
        if view is None or (record is None and view.get("history_only")):
            return self._create(artifact, observation)
        state = str(view.get("state"))
        if int(view.get("live_jobs") or 0) > 1:
            return self._blocked(
                artifact,
                observation,
                "flink_job_duplicate",
                f"{view.get('live_jobs')} live Flink jobs are named '{running_as}'; streamt cannot tell "
                "which one it manages.",
            )
        unchanged = _unchanged(artifact, record, running_as)
        if state in TERMINAL:
            return self._resubmit(artifact, observation, record, view, running_as, unchanged)
        if state not in ACTIVE and state != CRASH_LOOPING:
            return self._blocked(
                artifact,
                observation,
                "flink_job_not_running",
                f"Flink job '{running_as}' is {state}; wait until it is RUNNING or has stopped, then plan again.",
            )
        if unchanged:
            evidence = {}
            if migrating:  # the record learns the legacy name the job runs under
                evidence["record_attributes"] = record_attributes(artifact, view.get("job_id"), running_as)
            summary = f"{state}: {describe(view.get('cause'))}" if state == CRASH_LOOPING else state
            mode = mode_of(artifact)
            return [Action.for_artifact(NOOP, artifact, summary, observation, upgrade_mode=mode, **evidence)]
        return self._upgrade(artifact, observation, record, view, running_as)

    @staticmethod
    def _create(artifact: Artifact, observation: Observation) -> list[Any]:
        return [Action.for_artifact(CREATE, artifact, details(artifact), observation, upgrade_mode=mode_of(artifact))]

    def _upgrade(
        self, artifact: Artifact, observation: Observation, record: Any, view: dict[str, Any], running_as: str
    ) -> list[Any]:
        mode = mode_of(artifact)
        changes = {"definition": {"from": _recorded_definition(record), "to": definition_checksum(artifact)}}
        looping = view["state"] == CRASH_LOOPING
        why = f"it is crash-looping ({describe(view.get('cause'))})" if looping else ""
        if mode == STATELESS:
            upgrade = {"mode": STATELESS, "job_id": view["job_id"], "running_as": running_as}
            summary = "stateless upgrade: cancels the running job, starts the new SQL from scratch, drops its state"
            return self._reviewed(artifact, observation, summary, upgrade, changes, force=True)
        if mode not in (SAVEPOINT, LAST_STATE):
            advice = (
                f"{why}: set flink.upgrade_mode to last-state to resubmit the new SQL from its latest retained "
                "checkpoint, or stateless to start over"
                if looping
                else "set it to savepoint to upgrade through a savepoint, last-state to resubmit from its latest "
                "retained checkpoint, or stateless to start over"
            )
            return self._blocked(
                artifact,
                observation,
                "flink_job_update",
                f"Flink job '{running_as}' is {view['state']} with another definition; flink.upgrade_mode is "
                f"blocked ({advice}).",
                changes=changes,
                suggestion=(
                    "set flink.upgrade_mode: last-state (or stateless to start over)"
                    if looping
                    else "set flink.upgrade_mode: savepoint (or last-state, or stateless to start over)"
                )
                + ", then run `streamt plan --out PLAN.json`, review it and `streamt apply --plan PLAN.json`",
            )
        if (looping or mode == LAST_STATE) and not view.get("retained_checkpoint"):
            if looping:  # no savepoint from a failing job, and no checkpoint survives its cancel
                upgrade = {"mode": STATELESS, "job_id": view["job_id"], "running_as": running_as}
                summary = (
                    f"stateless upgrade: {why} and keeps no checkpoint a cancel retains, so neither a savepoint nor "
                    "last-state can keep its state; cancels it, starts the new SQL from scratch, drops its state"
                )
                return self._reviewed(artifact, observation, summary, upgrade, changes, force=True)
            return self._blocked(
                artifact,
                observation,
                "flink_job_no_retained_checkpoint",
                f"Flink job '{running_as}' has no completed checkpoint that a cancel retains, so a last-state "
                "upgrade has nothing to restore; set flink.checkpoint_interval_ms (jobs streamt submits retain "
                "on cancellation), or use flink.upgrade_mode: savepoint.",
                changes=changes,
                suggestion="set flink.upgrade_mode: savepoint (or stateless to start over), then run "
                "`streamt plan --out PLAN.json`, review it and `streamt apply --plan PLAN.json`",
            )
        blockers = _compatibility(artifact, record, running_as)
        if blockers:
            return self._blocked(artifact, observation, blockers[0], blockers[1], changes=changes)
        upgrade = {
            "mode": LAST_STATE if looping or mode == LAST_STATE else SAVEPOINT,
            "job_id": view["job_id"],
            "running_as": running_as,
            "previous_statements": list(_attributes(record).get("statements") or ()),
        }
        if upgrade["mode"] == SAVEPOINT:
            return self._reviewed(artifact, observation, "savepoint upgrade", upgrade, changes)
        summary = "last-state upgrade: cancels the job, resubmits the new SQL from its latest retained checkpoint"
        if looping:
            summary += f" ({why}: a savepoint cannot be taken)"
        return self._reviewed(artifact, observation, summary, upgrade, changes)

    def _resubmit(
        self,
        artifact: Artifact,
        observation: Observation,
        record: Any,
        view: dict[str, Any],
        running_as: str,
        unchanged: bool,
    ) -> list[Any]:
        state, restore = view["state"], view.get("restore")
        if restore and not unchanged:
            blockers = _compatibility(artifact, record, running_as)
            if blockers:
                return self._blocked(artifact, observation, blockers[0], blockers[1])
        upgrade = {"mode": RESUBMIT, "job_id": view["job_id"], "running_as": running_as, "restore_from": restore}
        what = f"the {state} job" if state != "ABSENT" else "the job the cluster no longer lists"
        if restore:
            summary = f"resubmit {what} from its last savepoint/checkpoint"
            return self._reviewed(artifact, observation, summary, upgrade, {})
        summary = f"resubmit {what} from scratch: it retained no savepoint or checkpoint, its state is dropped"
        return self._reviewed(artifact, observation, summary, upgrade, {}, force=True)

    @staticmethod
    def _reviewed(
        artifact: Artifact,
        observation: Observation,
        summary: str,
        upgrade: dict[str, Any],
        changes: dict[str, Any],
        force: bool = False,
    ) -> list[Any]:
        requires = ["reviewed_plan", "force"] if force else ["reviewed_plan"]
        evidence: dict[str, Any] = {"upgrade": upgrade, "requires": requires, "upgrade_mode": mode_of(artifact)}
        if changes:
            evidence["changes"] = changes
        return [Action.for_artifact(UPDATE, artifact, summary, observation, **evidence)]

    @staticmethod
    def _blocked(
        artifact: Artifact,
        observation: Observation,
        reason: str,
        message: str,
        suggestion: str | None = None,
        **evidence: Any,
    ) -> list[Any]:
        # The job's live state leads the summary; the mode it would run under is evidence of every refusal.
        summary = f"{(observation.spec or {}).get('state')}: {reason}"
        return blocked_update(
            artifact,
            observation,
            reason,
            message,
            suggestion,
            summary=summary,
            upgrade_mode=mode_of(artifact),
            **evidence,
        )

    @staticmethod
    def runtime_identity(artifact: Artifact) -> dict[str, str | None]:
        """The job as it runs: its pipeline name, its sources' consumer group and start mode, its sink topic."""
        text = "\n".join(str(s) for s in artifact.spec.get("statements") or ())
        group, start = _GROUP.search(text), _STARTUP.search(text)
        return {
            "name": pipeline_of(artifact),
            "group": group.group(1) if group else None,
            "start": start.group(1) if start else "the group's committed offsets",
            "writes": (artifact.spec.get("sink") or {}).get("topic"),
        }

    def advise(self, before: Artifact, after: Artifact) -> Advice:
        """What ``plan`` does when the job compiled as ``before`` runs and ``after`` replaces it.

        The decision is ``plan``'s own: it plans ``after`` against a RUNNING job whose ownership
        record is ``before``'s (its definition and statements), exactly as after a successful apply.
        When the configured ``flink.upgrade_mode`` blocks the change, the first mode that plan
        accepts (savepoint, then stateless) is the setting to change first.
        """
        running_as = pipeline_of(before)
        record = AppliedRecord(before.checksum, record_attributes(before, "running", running_as))
        state_compatible = _compatibility(after, record, running_as) is None
        configured = FlinkJobPlanner().plan(after, _running(running_as, after), record)
        setting, outcome = None, configured
        if _blocker(configured) is not None:
            for mode in [m for m in (SAVEPOINT, STATELESS) if m != mode_of(after)]:
                trial = FlinkJobPlanner().plan(_with_mode(after, mode), _running(running_as, after), record)
                if _blocker(trial) is None:
                    setting, outcome = f"flink.upgrade_mode: {mode}", trial
                    break
        return _advice(after, outcome, configured, setting, state_compatible)


def _running(name: str, artifact: Artifact) -> Observation:
    # A running job retains a checkpoint on cancel when checkpointing is on (jobs streamt submits retain).
    checkpoints = "execution.checkpointing.interval" in (artifact.spec.get("settings") or {})
    view = {"name": name, "state": "RUNNING", "job_id": "running", "live_jobs": 1, "retained_checkpoint": checkpoints}
    return Observation(PRESENT, view, assumed=True)


def _with_mode(artifact: Artifact, mode: str) -> Artifact:
    spec = {**artifact.spec, "lifecycle": {**(artifact.spec.get("lifecycle") or {}), "upgrade_mode": mode}}
    return attrs.evolve(artifact, spec=spec)


def _blocker(planned: list[Any]) -> SafetyBlocker | None:
    return next((p for p in planned if isinstance(p, SafetyBlocker)), None)


_WORKFLOWS = {
    SAVEPOINT: "stop the job with a savepoint and start the new SQL from it",
    LAST_STATE: "cancel the job and resubmit the new SQL from its latest retained checkpoint",
    STATELESS: "cancel the job and start the new SQL from scratch: its state is dropped",
}


def _advice(
    after: Artifact, outcome: list[Any], configured: list[Any], setting: str | None, state_compatible: bool
) -> Advice:
    action = next(p for p in outcome if not isinstance(p, SafetyBlocker))
    blocker = _blocker(outcome)
    first = _blocker(configured)
    upgrade = action.evidence.get("upgrade") or {}
    mode = upgrade.get("mode") or action.evidence.get("upgrade_mode")
    if action.action == NOOP:
        return Advice(
            kind=after.kind,
            identity=after.identity,
            workflow=None,
            description="the job's definition is unchanged: nothing is redeployed",
            summary="no job change (only its upgrade policy)",
            upgrade_mode=mode,
            state_compatible=True,
        )
    if blocker is not None:
        return Advice(
            kind=after.kind,
            identity=after.identity,
            workflow="flink_upgrade_blocked",
            description="plan refuses this change (E417) as the project is configured",
            summary=blocker.message,
            blocked=True,
            reason=blocker.reason,
            upgrade_mode=mode,
            state_compatible=state_compatible,
        )
    force = "force" in action.evidence.get("requires", ())
    commands = ("streamt plan --out PLAN.json", "streamt apply --plan PLAN.json" + (" --force" if force else ""))
    summary = action.summary
    if first is not None:
        summary = f"blocked as configured ({first.reason}: {first.message}); with {setting}: {summary}"
    return Advice(
        kind=after.kind,
        identity=after.identity,
        workflow=f"flink_{str(mode).replace('-', '_')}_upgrade",
        description=_WORKFLOWS.get(str(mode), summary) + " (a reviewed `streamt plan --out` / `streamt apply --plan`)",
        summary=summary,
        blocked=first is not None,
        reason=first.reason if first is not None else None,
        setting=setting,
        upgrade_mode=mode,
        state_compatible=state_compatible,
        commands=commands,
    )


def _attributes(record: Any) -> dict[str, Any]:
    return dict(getattr(record, "attributes", None) or {})


def _recorded_definition(record: Any) -> str | None:
    return _attributes(record).get("definition") or getattr(record, "artifact_checksum", None)


def _owned_view(artifact: Artifact, observation: Observation, record: Any) -> tuple[dict | None, str, bool]:
    """``(the job this artifact is, the name it runs under, whether its record must learn that name)``.

    The legacy (job-name-only) job is looked at only for a record of this project: one that names
    it, or one written before project-scoped names (no ``pipeline_name``) whose job is not listed
    under the new name. Without a record it is another project's business, never this one's.
    """
    spec = observation.spec or {}
    current = spec if observation.status == PRESENT else None
    legacy = spec.get("legacy")
    recorded = _attributes(record).get("pipeline_name")
    if recorded is not None and recorded != pipeline_of(artifact):
        return (legacy if recorded == job_name(artifact) else None), recorded, False
    # A cancelled leftover under the new name does not hide a live legacy job.
    current_live = current is not None and not current.get("history_only")
    legacy_wins = legacy is not None and (current is None or not legacy.get("history_only"))
    if record is not None and recorded is None and not current_live and legacy_wins:
        return legacy, job_name(artifact), True
    return current, pipeline_of(artifact), False


def _unchanged(artifact: Artifact, record: Any, running_as: str) -> bool:
    if record is None:
        return True  # no record only reaches the planner from `status` and recovery
    recorded = _attributes(record).get("definition")
    if recorded is not None:
        return recorded in (definition_checksum(artifact, running_as), delete_on_cancel_checksum(artifact, running_as))
    return record.artifact_checksum in (artifact.checksum, legacy_checksum(artifact))


def _compatibility(artifact: Artifact, record: Any, running_as: str) -> tuple[str, str] | None:
    """``(reason, message)`` when restoring the running job's state into the new SQL looks unsafe."""
    previous = _attributes(record).get("statements")
    if not previous:
        return (
            "flink_state_compatibility_unknown",
            f"streamt has no record of the SQL job '{running_as}' runs (it was deployed before this release "
            "recorded it), so it cannot check that its state restores into the new SQL.",
        )
    reasons = incompatibilities(list(previous), statements_for(artifact, running_as))
    if reasons:
        return (
            "flink_state_incompatible",
            f"The state of Flink job '{running_as}' would not restore into the new SQL: {'; '.join(reasons)}. "
            "Rename the model to start a new job, or use flink.upgrade_mode: stateless.",
        )
    return None
