"""The reviewed replacement coordinator: one predicate-only runner update, step by step, resumable.

Under the caller's state-operation lock, from a verified format-6 plan. Every transition is
journaled in the operation control (``started`` progress of the one intended action, its
``evidence.boundary`` naming the last acknowledged step) before the next provider call, and the
caller's ``verify`` (full current project, reviewed action, state reference, lock) runs before each:

1. ``stop_old`` — restart policy ``no``, then SIGTERM and a bounded wait for a clean exit (never
   SIGKILL: the runner commits its offsets on close) -> ``old_stopped``;
2. ``create_candidate`` — committed offsets must still be at or above the reviewed lower bounds (a
   missing or lower offset would mean reprocessing or a reset); the candidate gets the same
   application id and volume, the next generation, the compiled definition -> ``candidate_created``;
3. ``await_candidate`` — start it and wait for RUNNING within the runner timeout -> ``candidate_running``;
4. ``remove_old`` — remove the old container by ID (not forced; the volume stays) -> ``old_removed``;
5. ``commit`` — the runner's record only: new checksum and provider facts, one serial increment,
   control cleared;
6. ``write_receipt`` — the completion receipt (operation, plan checksum, candidate, serial).

There is no rollback: a step whose answer is lost leaves the journal and the live containers for
``state runner-status`` to diagnose and ``state resume`` to continue (``diagnosis``). Each step is
chosen from the journal *and* a fresh look at the engine, so a lost acknowledgement is repeated
only when its effect is provably absent, and a candidate is reused only when its generation,
checksum, operation and mounts are exactly the reviewed ones.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import attrs
from streamt.sdk import (
    RUNNER_REPLACEMENT_OPERATION,
    Artifact,
    Codes,
    Progress,
    Silent,
    Step,
    StreamtError,
    boundary,
    phase,
)

from streamt_kstreams import engine, offsets
from streamt_kstreams.container import create_options, plan_archive
from streamt_kstreams.definition import LABEL_GENERATION, read_plan
from streamt_kstreams.online import LABEL_CHECKSUM

# Core's generic reviewed recovery recognises this kind in the control record and refuses it.
OPERATION_KIND = RUNNER_REPLACEMENT_OPERATION
LABEL_OPERATION = "io.streamt.operation-id"
# Test-only: after the named step's real effect, before its journal write, behave as if the provider's (or, for
# control_cleared, the state commit's) answer was lost. Inert unless set.
LOSE_ACK_ENV = "STREAMT_TEST_LOSE_ACK_AT"
STOP_POLL_SECONDS = 0.5

INTENT, OLD_STOPPED, CANDIDATE_CREATED, CANDIDATE_RUNNING, OLD_REMOVED = (
    "intent_recorded",
    "old_stopped",
    "candidate_created",
    "candidate_running",
    "old_removed",
)
COMMITTED, COMPLETED = "committed", "completed"


class LostAcknowledgement(Exception):
    """The step's effect may have happened; its answer never arrived (``committed: null``)."""

    def __init__(self, boundary_name: str, committed_unknown: bool = False) -> None:
        super().__init__(boundary_name)
        self.boundary_name = boundary_name
        self.committed_unknown = committed_unknown


def lose_ack(after: str) -> None:
    if os.environ.get(LOSE_ACK_ENV) == after:
        raise LostAcknowledgement(after, committed_unknown=after == "control_cleared")


def intent(binding: dict[str, Any]) -> dict[str, Any]:
    """The operation's one intended action: identities and checksums only."""
    action = binding["action"]
    return {
        "position": 0,
        "action": "replace",
        "kind": action["kind"],
        "name": action["name"],
        "identity": action["identity"],
        "checksum": binding["to_checksum"],
        "from_checksum": binding["from_checksum"],
        "plan_checksum": binding["plan_checksum"],
    }


def last_boundary(control: Any) -> str:
    """The last acknowledged boundary of the journal (``intent_recorded`` before any step)."""
    for entry in reversed(control.progress):
        if entry.evidence and entry.evidence.get("boundary"):
            return str(entry.evidence["boundary"])
    return INTENT


@attrs.frozen
class Live:
    """The old container and the candidate as the engine shows them now (``None``: absent)."""

    old: dict[str, Any] | None
    candidate: dict[str, Any] | None


def inspect(client: Any, reference: str) -> dict[str, Any] | None:
    import docker

    try:
        return dict(client.api.inspect_container(reference))
    except docker.errors.NotFound:
        return None
    except Exception as exc:
        raise engine.failure(exc) from None


def look(client: Any, binding: dict[str, Any]) -> Live:
    return Live(inspect(client, binding["container_id"]), inspect(client, binding["candidate_container_name"]))


def is_running(info: dict[str, Any] | None) -> bool:
    return info is not None and (info.get("State") or {}).get("Status") == "running"


def is_healthy(info: dict[str, Any] | None) -> bool:
    return is_running(info) and ((info or {}).get("State") or {}).get("Health", {}).get("Status") == "healthy"


def candidate_problem(
    client: Any, info: dict[str, Any], binding: dict[str, Any], artifact: Artifact, operation_id: str
) -> str | None:
    """Why a container under the candidate's name is not exactly this operation's candidate (``None``: it is)."""
    labels = (info.get("Config") or {}).get("Labels") or {}
    mounts = sorted(str(m.get("Name")) for m in info.get("Mounts") or () if m.get("Type") == "volume")
    if labels.get(LABEL_GENERATION) != str(binding["candidate_generation"]):
        return "its generation label is not the reviewed candidate generation"
    if labels.get(LABEL_CHECKSUM) != binding["to_checksum"] or labels.get(LABEL_OPERATION) != operation_id:
        return "it was created for another definition or operation"
    if mounts != [binding["volume"]] or info.get("Image") != binding["image"]:
        return "its image or mounted volume is not the reviewed one"
    if is_running(info) and read_plan(client, str(info["Id"])) != artifact.spec:
        return "its plan file is not the reviewed definition"
    return None


@attrs.define
class Coordinator:
    runtime: Any
    backend: Any
    binding: dict[str, Any]
    artifact: Artifact
    timeout: float
    verify: Callable[[], None]
    poll_seconds: float = STOP_POLL_SECONDS
    # Hears each step as it starts and ends; the journal boundary is written inside the step.
    progress: Progress = attrs.field(factory=Silent)

    def journal(self, control: Any, boundary_name: str, **facts: Any) -> Any:
        evidence = {"boundary": boundary_name, **facts}
        control = self.backend.record_progress_many(control, [0], "started", evidence=evidence)
        boundary()
        return control

    def run(self, control: Any) -> Any:
        """Advance ``control`` (in progress, this operation) to a committed state; returns the new state."""
        client = engine.client()
        try:
            while True:
                self.verify()
                live = look(client, self.binding)
                step = next_step(last_boundary(control), live, self.binding)
                with phase(self.progress, Step(step, self.artifact.kind, self.artifact.identity)):
                    if step == "commit":
                        return self.commit(control, live)
                    control = getattr(self, step)(client, control, live)
        finally:
            client.close()

    # -- the steps ----------------------------------------------------------

    def stop_old(self, client: Any, control: Any, live: Live) -> Any:
        old_id = self.binding["container_id"]
        try:
            # Without this, `unless-stopped` could bring the old runner back next to its candidate.
            client.api.update_container(old_id, restart_policy={"Name": "no"})
            client.api.kill(old_id, signal="SIGTERM")
        except Exception:
            raise step_failed("stop_old", "the engine did not acknowledge the stop of the old runner") from None
        deadline = time.monotonic() + self.timeout
        while is_running(inspect(client, old_id)):
            if time.monotonic() > deadline:
                why = "the old runner did not stop within the runner timeout (it is never force-killed)"
                raise step_failed("stop_old", why)
            time.sleep(self.poll_seconds)
        exit_code = ((inspect(client, old_id) or {}).get("State") or {}).get("ExitCode")
        lose_ack(OLD_STOPPED)
        return self.journal(control, OLD_STOPPED, old_exit_code=exit_code)

    def create_candidate(self, client: Any, control: Any, live: Live) -> Any:
        self.require_offsets()
        binding = self.binding
        options = create_options(self.runtime, self.artifact)
        options["name"] = binding["candidate_container_name"]
        options["labels"] = {
            **options["labels"],
            LABEL_GENERATION: str(binding["candidate_generation"]),
            LABEL_OPERATION: control.operation_id,
        }
        try:
            container = client.containers.create(**options)
        except Exception:
            raise step_failed("create_candidate", "the candidate's create had no clear answer") from None
        lose_ack(CANDIDATE_CREATED)
        return self.journal(control, CANDIDATE_CREATED, candidate_container_id=str(container.id))

    def await_candidate(self, client: Any, control: Any, live: Live) -> Any:
        info = live.candidate or {}
        problem = candidate_problem(client, info, self.binding, self.artifact, control.operation_id)
        if problem:
            raise blocked(f"the container named {self.binding['candidate_container_name']} cannot be reused: {problem}")
        candidate_id = str(info["Id"])
        if not is_running(info):
            self.require_offsets()
            try:
                client.api.put_archive(candidate_id, "/etc", plan_archive(self.artifact))
                client.api.start(candidate_id)
            except Exception:
                raise step_failed("await_candidate", "the candidate's start had no clear answer") from None
        deadline = time.monotonic() + self.timeout
        while not is_healthy(current := inspect(client, candidate_id)):
            if current is None or (current.get("State") or {}).get("Status") in ("exited", "dead"):
                raise step_failed("await_candidate", "the candidate exited before it reported RUNNING")
            if time.monotonic() > deadline:
                raise step_failed("await_candidate", "the candidate did not report RUNNING within the runner timeout")
            time.sleep(self.poll_seconds)
        lose_ack(CANDIDATE_RUNNING)
        return self.journal(control, CANDIDATE_RUNNING, candidate_container_id=candidate_id)

    def remove_old(self, client: Any, control: Any, live: Live) -> Any:
        import docker

        try:
            client.api.remove_container(self.binding["container_id"], v=False, force=False)
        except docker.errors.NotFound:
            pass  # removed by the lost step before: the fresh look said it is stopped, now it is gone
        except Exception:
            raise step_failed("remove_old", "the engine did not acknowledge the removal of the old runner") from None
        lose_ack(OLD_REMOVED)
        return self.journal(control, OLD_REMOVED)

    def commit(self, control: Any, live: Live) -> Any:
        """Only the runner's record changes: checksum and provider facts; one serial increment."""
        current = self.backend.read_state()
        record = current.by_resource[self.binding["resource_id"]]
        updated = attrs.evolve(
            record,
            artifact_checksum=self.binding["to_checksum"],
            attributes=record_attributes(self.binding, str((live.candidate or {})["Id"]), control.operation_id),
        )
        records = [updated if r.resource_id == record.resource_id else r for r in current.records]
        state = self.backend.commit(control, records)
        boundary()
        lose_ack("control_cleared")
        return state

    def require_offsets(self) -> None:
        bounds = self.binding["offset_lower_bounds"]
        now = offsets.committed(self.runtime, self.binding["application_id"], self.binding["input_topic"])
        behind = offsets.regressions(bounds, now)
        if behind:
            raise blocked(
                "the committed offsets of partition(s) " + ", ".join(behind) + " of the input are below the reviewed "
                "lower bounds or gone; the candidate would reprocess or reset, which streamt never does"
            )


def record_attributes(binding: dict[str, Any], container_id: str, operation_id: str) -> dict[str, Any]:
    return {
        "application_id": binding["application_id"],
        "container_id": container_id,
        "generation": binding["candidate_generation"],
        "image": binding["image"],
        "operation_id": operation_id,
        "volume": binding["volume"],
    }


def next_step(phase: str, live: Live, binding: dict[str, Any]) -> str:
    """The next provable step from the journal's last boundary and the live containers; ``E419`` when none is."""
    old, candidate = live.old, live.candidate
    if old is not None and is_running(old):
        if candidate is not None:
            raise blocked("the old runner is running next to a container under the candidate's name")
        return "stop_old"
    if old is not None:
        return (
            "await_candidate"
            if candidate is not None and not is_healthy(candidate)
            else ("remove_old" if candidate is not None else "create_candidate")
        )
    if candidate is None:
        raise blocked(
            "the old runner is removed and no candidate exists (old-removed/new-absent): the replacement is "
            "incomplete; streamt does not recreate or replan it"
        )
    return "commit" if is_healthy(candidate) and phase in (CANDIDATE_RUNNING, OLD_REMOVED) else "await_candidate"


def step_failed(step: str, why: str) -> StreamtError:
    return StreamtError(
        Codes.E407_DEPLOY_ERROR,
        f"The runner replacement stopped at {step}: {why}. Nothing was rolled back; the operation stays pending.",
        "Diagnose with `streamt state runner-status --plan FILE --operation-id UUID`, then continue with "
        "`streamt state resume` (same plan file and operation id).",
    )


def blocked(why: str) -> StreamtError:
    return StreamtError(
        Codes.E419_STATE_RECOVERY_REQUIRED,
        f"The runner replacement cannot continue: {why}.",
        "Keep the containers, volume and .streamt/state/ as they are; see docs/runner-replacement.md.",
    )
