"""Each declaration's physical resource, read from its compiled artifacts: what read commands name.

A consumer subscribes to what exists on the cluster, not to a model name: the Gateway alias of a
virtual topic, the connector of a sink, the job of a Flink or Kafka Streams model, the topic of a
topic model or a source. ``list``, ``show``, ``lineage``, the docs site, ``docs dictionary`` and the
exporters all ask this one function, so they can never disagree with what ``apply`` deploys.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from streamt.artifacts import Artifact
from streamt.compile.engine import compile_project
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.kind_names import KIND_CONNECTOR, KIND_FLINK_JOB, KIND_GATEWAY_RULE, KIND_KAFKA_STREAMS_JOB, KIND_TOPIC
from streamt.validation import validate_project

# The resource that *is* the declaration, first match wins: a Flink model also writes a topic, but
# its job is what runs it; a virtual topic's alias is what consumers read.
PRIMARY = (KIND_GATEWAY_RULE, KIND_CONNECTOR, KIND_FLINK_JOB, KIND_KAFKA_STREAMS_JOB, KIND_TOPIC)
# What a consumer subscribes to, when the declaration has one (a sink has none).
READABLE = (KIND_GATEWAY_RULE, KIND_TOPIC)


@attrs.frozen
class Physical:
    """``kind``/``name`` of the declaration's resource (artifact kind and identity) and its readable ``topic``."""

    kind: str
    name: str
    topic: str | None

    def to_json(self) -> dict[str, Any]:
        """``{kind, name}``: what read commands report as the declaration's physical resource."""
        return {"kind": self.kind, "name": self.name}


def physical_resources(artifacts: Iterable[Artifact]) -> dict[str, Physical]:
    """Declaration name -> its physical resource; declarations without a deployable artifact are absent."""
    found: dict[str, dict[str, str]] = {}
    for artifact in artifacts:
        if artifact.kind in PRIMARY:
            found.setdefault(artifact.name, {}).setdefault(artifact.kind, artifact.identity)
    resources = {}
    for name, identities in found.items():
        kind = next(k for k in PRIMARY if k in identities)
        topic = next((identities[k] for k in READABLE if k in identities), None)
        resources[name] = Physical(kind, identities[kind], topic)
    return resources


def readable_artifacts(
    project: Any, left_out: str, declarations: list[Any] | None = None
) -> tuple[tuple[Artifact, ...], tuple[Diagnostic, ...]]:
    """The compiled artifacts of ``declarations`` (default: all) for a read command. A project that
    cannot compile (a plugin missing, or the project is not valid) gives none and a ``W901``
    starting with ``left_out``: a read command still shows its declarations."""
    try:
        return tuple(compile_project(project, declarations=declarations).artifacts), ()
    except StreamtError as exc:
        # Compilers assume a valid project: validation (only now, it costs as much as compiling)
        # says whether the project or a plugin is to blame.
        suggestion: str | None = "Run `streamt validate` and fix it."
        if validate_project(project).errors:
            message = f"{left_out}: the project is not valid"
        else:
            first = exc.diagnostics[0]
            message, suggestion = f"{left_out}: {first.code.code}: {first.message}", first.suggestion
        return (), (Diagnostic(Codes.W901_PLUGIN_WARNING, message, suggestion),)
