"""``runtime.connect``: the Kafka Connect clusters a project names, declared to core as this plugin's section.

Core structures the section into ``ConnectRuntime`` while loading the project (types are ``E501``
at their position) and keeps it in ``project.runtime.sections["connect"]``; ``connect_runtime``
reads it back. ``check_declaration`` (run by ``validate`` for every model) reports a sink without
connector settings (E204) and one whose environment has no ``runtime.connect`` (E205).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import Codes, ConfigSection, Diagnostic

from streamt_connect.settings import sink_settings

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Project, Runtime

NAME = "connect"

_SSL = ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location", "ssl_key_password")
KEYS: dict[str, Any] = {"default": None, "clusters": {"*": dict.fromkeys(("rest_url", "username", "password", *_SSL))}}


@attrs.frozen(kw_only=True)
class ConnectCluster:
    """One Kafka Connect cluster.

    * ``rest_url`` — its REST API; ``username``, ``password`` — basic-auth credentials (use ``${VAR}``).
    * ``ssl_ca_location``, ``ssl_certificate_location``, ``ssl_key_location``, ``ssl_key_password`` — TLS files.
    """

    rest_url: str
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None
    ssl_key_password: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(kw_only=True)
class ConnectRuntime:
    """Kafka Connect.

    * ``default`` — the cluster a sink uses unless it names one; ``clusters`` — the clusters by name.
    """

    default: str | None = None
    clusters: dict[str, ConnectCluster] = attrs.field(factory=dict)

    @property
    def default_cluster(self) -> str | None:
        if self.default:
            return self.default
        return next(iter(self.clusters)) if len(self.clusters) == 1 else None


def connect_runtime(runtime: Runtime) -> ConnectRuntime | None:
    """The project's ``runtime.connect``, or ``None`` when it is not configured."""
    value = runtime.section(NAME)
    return value if isinstance(value, ConnectRuntime) else None


def check_declaration(declaration: Any, project: Project) -> list[Diagnostic]:
    """A sink model needs connector settings (E204) and ``runtime.connect`` (E205)."""
    if getattr(declaration, "materialized", None) != "sink":
        return []
    location = project.locations.get(("model", declaration.name))
    out: list[Diagnostic] = []
    sink = sink_settings(declaration)
    if sink is None or not sink.connector:
        out.append(
            Diagnostic(
                Codes.E204_MISSING_SINK_CONFIG,
                f"Sink model '{declaration.name}' has no connector configuration",
                "Add sink: {connector: jdbc-sink, config: {...}}.",
                location,
            )
        )
    if connect_runtime(project.runtime) is None:
        out.append(
            Diagnostic(
                Codes.E205_CONNECT_REQUIRED,
                f"Sink model '{declaration.name}' needs runtime.connect",
                "Add runtime.connect with a default cluster and its rest_url.",
                location,
            )
        )
    return out


def _enables(_connect: ConnectRuntime) -> tuple[str, ...]:
    return ("sink",)


SECTION = ConfigSection(
    path=f"runtime.{NAME}",
    model=ConnectRuntime,
    keys=KEYS,
    extra="connect",
    enables=_enables,
    check_declaration=check_declaration,
)
