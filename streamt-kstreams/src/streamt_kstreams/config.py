"""``runtime.kafka_streams``: the packaged runner's settings, declared to core as this plugin's section.

Core structures the section into ``KafkaStreamsRuntime`` while loading the project (types and
missing keys are ``E501`` at their position) and keeps it in
``project.runtime.sections["kafka_streams"]``; ``kafka_streams_runtime`` reads it back. ``check``
(run by ``validate`` when the section is written) refuses a moving image tag, a Docker network
the runner must not join and an unknown initial offset; ``check_declaration`` reports a model
with ``executor: kafka_streams`` in an environment without the section (E208).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import Codes, ConfigSection, Diagnostic

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Project, Runtime

NAME = "kafka_streams"
INITIAL_OFFSETS = ("earliest", "latest")
# An immutable image ID or repository digest, never a moving tag.
IMAGE_ID_PATTERN = r"^(?:sha256:[0-9a-f]{64}|[^\s@]+@sha256:[0-9a-f]{64})$"
KEYS: dict[str, Any] = dict.fromkeys(("image", "docker_network", "bootstrap_servers", "initial_offset"))

_IMAGE = re.compile(IMAGE_ID_PATTERN)
# A runner joins the host's network or a named user network. Docker's own names are refused: `none`
# cuts it off, `bridge`/`default` is the legacy network without name resolution, and `container:<id>`
# would join another container's namespace. A name as Docker spells one, at most 64 characters.
_NETWORK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_RESERVED_NETWORKS = frozenset({"none", "bridge", "default"})


@attrs.frozen(kw_only=True)
class KafkaStreamsRuntime:
    """The packaged Kafka Streams runner.

    * ``image`` — the runner image: an immutable ``sha256:<id>`` or ``repo@sha256:<digest>`` (``runtime build``).
    * ``docker_network`` — the Docker network of the runner containers.
    * ``initial_offset`` — where a fresh application starts: ``earliest`` or ``latest``.
    * ``bootstrap_servers`` — the brokers as the runner container reaches them (default:
      ``runtime.kafka.bootstrap_servers_internal``, else ``bootstrap_servers``).
    """

    image: str = attrs.field(metadata={"json_schema": {"pattern": IMAGE_ID_PATTERN}})
    docker_network: str
    initial_offset: str = attrs.field(metadata={"json_schema": {"enum": list(INITIAL_OFFSETS)}})
    bootstrap_servers: str | None = None


def kafka_streams_runtime(runtime: Runtime) -> KafkaStreamsRuntime | None:
    """The project's ``runtime.kafka_streams``, or ``None`` when it is not configured."""
    value = runtime.section(NAME)
    return value if isinstance(value, KafkaStreamsRuntime) else None


def check(streams: KafkaStreamsRuntime, _project: Project) -> list[Diagnostic]:
    """The image is pinned, the network one a runner may join, the initial offset a known one (E501)."""
    out: list[Diagnostic] = []
    if not _IMAGE.match(streams.image):
        out.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"runtime.kafka_streams.image '{streams.image}' is not an immutable image ID or digest",
                "Use sha256:<64 hex> or repo@sha256:<64 hex> (see 'streamt runtime build').",
            )
        )
    network = streams.docker_network
    if network.lower() in _RESERVED_NETWORKS or not _NETWORK.match(network):
        out.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"runtime.kafka_streams.docker_network '{network[:80]}' is not host or a named user network",
                "Use host, or the name of a Docker network you created (letters, digits, '_', '.', '-'; "
                "at most 64 characters); none, bridge, default and container:<id> are refused.",
            )
        )
    if streams.initial_offset not in INITIAL_OFFSETS:
        valid = ", ".join(INITIAL_OFFSETS)
        out.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"Invalid initial_offset '{streams.initial_offset}' in runtime.kafka_streams. Valid: {valid}",
                f"Use one of: {valid}.",
            )
        )
    return out


def check_declaration(declaration: Any, project: Project) -> list[Diagnostic]:
    """A model with ``executor: kafka_streams`` needs ``runtime.kafka_streams`` (E208)."""
    if getattr(declaration, "executor", None) != "kafka_streams" or kafka_streams_runtime(project.runtime) is not None:
        return []
    return [
        Diagnostic(
            Codes.E208_MISSING_CONFIG,
            f"Model '{declaration.name}' uses executor kafka_streams but runtime.kafka_streams is not configured",
            "Add runtime.kafka_streams {image, docker_network, initial_offset} (see 'streamt runtime build').",
            project.locations.get(("model", declaration.name)),
        )
    ]


SECTION = ConfigSection(
    path=f"runtime.{NAME}",
    model=KafkaStreamsRuntime,
    keys=KEYS,
    extra="kstreams",
    check=check,
    check_declaration=check_declaration,
)
