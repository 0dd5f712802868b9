"""``runtime.conduktor``: the Conduktor Gateway (and Console) a project deploys virtual topics to.

Declared to core as this plugin's section: core structures it into ``ConduktorRuntime`` while
loading (``runtime.gateway`` is the dsl.md §19 shorthand of ``runtime.conduktor.gateway``, folded
by core, and ``url`` an alias of ``admin_url``) and keeps it in
``project.runtime.sections["conduktor"]``; ``gateway_runtime`` reads the Gateway part back.
``check_declaration`` (run by ``validate`` for every model) reports a ``virtual_topic`` model
without a Gateway (E201).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import Codes, ConfigSection, Diagnostic

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Project, Runtime

NAME = "conduktor"

_GATEWAY_KEYS = dict.fromkeys(("admin_url", "url", "proxy_bootstrap", "username", "password", "virtual_cluster"))
KEYS: dict[str, Any] = {"gateway": _GATEWAY_KEYS, "console": dict.fromkeys(("url", "api_key"))}


@attrs.frozen(kw_only=True)
class GatewayRuntime:
    """The Gateway admin API (``admin_url``, credentials, virtual cluster) and its Kafka proxy address."""

    admin_url: str | None = None
    proxy_bootstrap: str | None = None
    username: str = "admin"
    password: str = attrs.field(default="conduktor", repr=False)
    virtual_cluster: str | None = None


@attrs.frozen(kw_only=True)
class ConsoleRuntime:
    url: str
    api_key: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(kw_only=True)
class ConduktorRuntime:
    gateway: GatewayRuntime | None = None
    console: ConsoleRuntime | None = None


def gateway_runtime(runtime: Runtime | None) -> GatewayRuntime | None:
    """The configured Gateway (``runtime.conduktor.gateway``), or ``None``."""
    value = runtime.section(NAME) if runtime is not None else None
    return value.gateway if isinstance(value, ConduktorRuntime) else None


def check_declaration(declaration: Any, project: Project) -> list[Diagnostic]:
    """A ``virtual_topic`` model needs a configured Gateway (E201)."""
    if getattr(declaration, "materialized", None) != "virtual_topic" or project.runtime.enables("virtual_topic"):
        return []
    return [
        Diagnostic(
            Codes.E201_GATEWAY_REQUIRED,
            f"Model '{declaration.name}' is a virtual_topic but no Gateway is configured",
            "Add runtime.conduktor.gateway (admin_url), or materialize it as flink/topic.",
            project.locations.get(("model", declaration.name)),
        )
    ]


def _enables(conduktor: ConduktorRuntime) -> tuple[str, ...]:
    return ("virtual_topic",) if conduktor.gateway is not None else ()


SECTION = ConfigSection(
    path=f"runtime.{NAME}",
    model=ConduktorRuntime,
    keys=KEYS,
    extra="gateway",
    enables=_enables,
    check_declaration=check_declaration,
)
