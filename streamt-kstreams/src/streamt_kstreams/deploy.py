"""Deploying Kafka Streams runners: create the exact container, nothing else.

Only ``create`` exists (any change to an existing runner is the ``kafka_streams_update`` blocker).
One runner per batch. A create:

1. creates (or finds) the named state volume ``<application id>-state`` (volumes are never removed);
2. creates the container, not started: the image by ID, the ownership labels, the volume on
   ``/var/lib/streamt``, host networking (or the configured network, which streamt never creates),
   restart policy ``unless-stopped``, SASL credentials from ``runtime.kafka`` as environment
   variables (never in the plan file, state or output);
3. copies the compiled plan into it as ``/etc/streamt/plan.json`` and starts it;
4. waits until the runner reports RUNNING (its health check), at most the runner timeout
   (``apply --runner-timeout``, else ``STREAMT_RUNNER_TIMEOUT``, else 60 s).

Outcomes: ``failed`` when nothing was created, or when the runner exited or did not reach RUNNING
and this deployer removed its container again (the volume stays); ``unknown`` when the create call
got no answer or a container it made could not be removed: it may exist. ``done`` once RUNNING,
with the container ID read back from the engine; the ownership record keeps it with the
generation (1), volume, image and application id (what a reviewed replacement binds).

A reviewed replacement (``replace``) is not a batch action: ``apply --plan`` of a format-6 file
hands it to the coordinator (``coordinator``, ``operation``).

Rollback removes exactly the container this run created (by its ID), never a volume.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from streamt.sdk import CREATE, DONE, FAILED, UNKNOWN, Action, Artifact, Codes, Outcome, StreamtError

from streamt_kstreams import engine, offsets
from streamt_kstreams.container import create_options, plan_archive
from streamt_kstreams.coordinator import Coordinator
from streamt_kstreams.limits import DEFAULT_RUNNER_WAIT, MAX_RUNNER_WAIT
from streamt_kstreams.online import KIND, check_kafka_security, labels
from streamt_kstreams.operation import begin, drive

DEFAULT_RUNNER_TIMEOUT = DEFAULT_RUNNER_WAIT
MAX_RUNNER_TIMEOUT = MAX_RUNNER_WAIT
TIMEOUT_ENV = "STREAMT_RUNNER_TIMEOUT"


def runner_timeout(environ: Any = os.environ) -> float:
    raw = environ.get(TIMEOUT_ENV)
    if raw is None or raw == "":
        return DEFAULT_RUNNER_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= MAX_RUNNER_TIMEOUT:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"{TIMEOUT_ENV} must be a number of seconds greater than 0 and at most {MAX_RUNNER_TIMEOUT:.0f}.",
            f"Unset it for the default of {DEFAULT_RUNNER_TIMEOUT:.0f} seconds.",
        )
    return value


@attrs.define
class KafkaStreamsDeployer:
    runtime: Any
    # identity -> ID of the container this deployer created (what rollback may remove).
    created: dict[str, str] = attrs.field(factory=dict)
    poll_seconds: float = 0.5
    # `apply --runner-timeout` (seconds); None: STREAMT_RUNNER_TIMEOUT, else the default.
    runner_timeout: float | None = None
    kinds = (KIND,)
    max_batch = 1

    def timeout(self) -> float:
        return self.runner_timeout if self.runner_timeout is not None else runner_timeout()

    def prepare_replacement(self, replacement: dict[str, Any]) -> dict[str, Any]:
        """The live facts a format-6 plan binds besides the planner's evidence: offset lower bounds."""
        bounds = offsets.committed(self.runtime, replacement["application_id"], replacement["input_topic"])
        return {"offset_lower_bounds": bounds}

    def replace(
        self,
        backend: Any,
        binding: dict[str, Any],
        artifact: Artifact,
        verify: Any,
        plan_path: str,
        env: str | None,
        on_begin: Callable[[Any], None] | None = None,
    ) -> dict[str, Any]:
        """Begin and drive one reviewed replacement under the caller's lock (``operation``).

        ``on_begin(control)`` runs once the durable intent exists, before the first provider call
        (the OpenLineage START of ``apply --emit-openlineage``, like the generic executor's).
        """
        coordinator = Coordinator(self.runtime, backend, binding, artifact, self.timeout(), verify)
        control = begin(backend, binding)
        if on_begin is not None:
            on_begin(control)
        return drive(coordinator, control, plan_path, env)

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        if action != CREATE:
            raise ValueError(f"the Kafka Streams deployer cannot {action}: existing runners are never changed")
        return {artifact.identity: self._create(artifact) for _, artifact in pairs}

    def _create(self, artifact: Artifact) -> Outcome:
        import docker

        try:
            timeout = self.timeout()
            check_kafka_security(self.runtime)
            client = engine.client()
        except StreamtError as exc:
            return Outcome(FAILED, exc.diagnostics[0].code.code)
        try:
            options = create_options(self.runtime, artifact)
            try:
                client.volumes.create(name=artifact.spec["state_volume"], labels=_volume_labels(artifact))
            except Exception as exc:
                return Outcome(FAILED, type(exc).__name__)  # a volume alone is not the runner
            try:
                container = client.containers.create(**options)
            except docker.errors.APIError as exc:
                # The engine answered with a refusal (a name conflict, an unknown image): nothing was created.
                if exc.response is not None and exc.response.status_code in (400, 404, 409):
                    return Outcome(FAILED, type(exc).__name__)
                return Outcome(UNKNOWN, type(exc).__name__)
            except Exception as exc:
                return Outcome(UNKNOWN, type(exc).__name__)  # no answer: the container may exist
            self.created[artifact.identity] = str(container.id)
            try:
                container.put_archive("/etc", plan_archive(artifact))
                container.start()
            except Exception as exc:
                return self._give_up(client, artifact, type(exc).__name__)
            return self._await_running(client, artifact, timeout)
        finally:
            client.close()

    def _await_running(self, client: Any, artifact: Artifact, timeout: float) -> Outcome:
        container_id = self.created[artifact.identity]
        deadline = time.monotonic() + timeout
        while True:
            try:
                attrs_ = client.api.inspect_container(container_id)
            except Exception:
                attrs_ = None
            if attrs_ is not None:
                state = attrs_.get("State") or {}
                if state.get("Status") in ("exited", "dead") or int(attrs_.get("RestartCount") or 0) > 0:
                    return self._give_up(client, artifact, "RunnerExited")
                if (state.get("Health") or {}).get("Status") == "healthy" and attrs_.get("Id") == container_id:
                    return Outcome(DONE, attributes=created_attributes(artifact, container_id))
            if time.monotonic() > deadline:
                return self._give_up(client, artifact, "RunnerNotRunning")
            time.sleep(self.poll_seconds)

    def _give_up(self, client: Any, artifact: Artifact, why: str) -> Outcome:
        """The runner did not come up: remove its container; ``failed`` only once it is really gone."""
        if self._remove(client, self.created.get(artifact.identity)):
            self.created.pop(artifact.identity, None)
            return Outcome(FAILED, why)
        return Outcome(UNKNOWN, why)

    @staticmethod
    def _remove(client: Any, container_id: str | None) -> bool:
        import docker

        if container_id is None:
            return False
        try:
            client.api.remove_container(container_id, force=True, v=False)
        except docker.errors.NotFound:
            return True
        except Exception:
            return False
        return True

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Remove the container this run created for ``artifact`` (its exact ID); never its volume."""
        container_id = self.created.get(artifact.identity)
        if action.action != CREATE or container_id is None:
            return False
        try:
            client = engine.client()
        except StreamtError:
            return False
        try:
            return self._remove(client, container_id)
        finally:
            client.close()


def created_attributes(artifact: Artifact, container_id: str) -> dict[str, Any]:
    spec = artifact.spec
    return {
        "application_id": spec["application_id"],
        "container_id": container_id,
        "generation": 1,
        "image": spec["runtime"]["image"],
        "volume": spec["state_volume"],
    }


def _volume_labels(artifact: Artifact) -> dict[str, str]:
    own = labels(artifact)
    own.pop("io.streamt.artifact-checksum")  # the volume outlives definitions: it holds the application's state
    return own
