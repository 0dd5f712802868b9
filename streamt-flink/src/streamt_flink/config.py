"""``runtime.flink``: the Flink clusters a project names, declared to core as this plugin's section.

Core structures the section into ``FlinkRuntime`` while loading the project (types are ``E501`` at
their position) and keeps it in ``project.runtime.sections["flink"]``; ``flink_runtime`` reads it
back. ``check`` (run by ``validate``) reports cluster names that ``runtime.flink.clusters`` lacks;
``check_declaration`` a ``flink`` model or ``continuous`` test without a Flink runtime (E202, E207).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import Codes, ConfigSection, Diagnostic

from streamt_flink.settings import flink_cluster

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Project, Runtime

NAME = "flink"

_CLUSTER_KEYS = (
    *("type", "rest_url", "sql_gateway_url", "version", "environment", "api_key", "api_secret"),
    *("username", "password", "namespace", "service_account", "image", "compute_pool_id", "region"),
)
KEYS: dict[str, Any] = {"default": None, "clusters": {"*": dict.fromkeys(_CLUSTER_KEYS)}}


@attrs.frozen(kw_only=True)
class FlinkCluster:
    """One named cluster: ``type`` ``rest`` (self-managed) or ``confluent``, and how to reach it."""

    type: str = "rest"
    rest_url: str | None = None
    sql_gateway_url: str | None = None
    version: str | None = None
    environment: str | None = None
    api_key: str | None = None
    api_secret: str | None = attrs.field(default=None, repr=False)
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    namespace: str | None = None
    service_account: str | None = None
    image: str | None = None
    compute_pool_id: str | None = None
    region: str | None = None


@attrs.frozen(kw_only=True)
class FlinkRuntime:
    """``runtime.flink``: named clusters, and the one a model without ``flink_cluster`` runs on."""

    default: str | None = None
    clusters: dict[str, FlinkCluster] = attrs.field(factory=dict)

    @property
    def default_cluster(self) -> str | None:
        if self.default:
            return self.default
        return next(iter(self.clusters)) if len(self.clusters) == 1 else None


def flink_runtime(runtime: Runtime) -> FlinkRuntime | None:
    """The project's ``runtime.flink``, or ``None`` when it is not configured."""
    value = runtime.section(NAME)
    return value if isinstance(value, FlinkRuntime) else None


def check(flink: FlinkRuntime, project: Project) -> list[Diagnostic]:
    """Every cluster a model, a test or ``runtime.flink.default`` names must be declared (E208)."""
    known = set(flink.clusters)
    out: list[Diagnostic] = []
    for model in project.models:
        cluster = flink_cluster(model)
        if cluster and cluster not in known:
            location = project.locations.get(("model", model.name))
            out.append(_unknown_cluster(f"model '{model.name}'", cluster, known, location))
    for test in project.tests:
        if test.flink_cluster and test.flink_cluster not in known:
            location = project.locations.get(("test", test.name))
            out.append(_unknown_cluster(f"test '{test.name}'", test.flink_cluster, known, location))
    if flink.default and flink.default not in known:
        out.append(_unknown_cluster("runtime.flink.default", flink.default, known, None))
    return out


def _unknown_cluster(where: str, name: str, known: set[str], location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.E208_MISSING_CONFIG,
        f"{where} names Flink cluster '{name}', which is not in runtime.flink.clusters",
        "Known clusters: " + (", ".join(sorted(known)) or "(none)"),
        location,
    )


def check_declaration(declaration: Any, project: Project) -> list[Diagnostic]:
    """A ``flink`` model (E202) and a ``continuous`` test (E207) need a configured Flink runtime."""
    from streamt.sdk import Model, Test  # loaded with the project this is asked about

    if project.runtime.enables("flink"):
        return []
    if isinstance(declaration, Model) and declaration.materialized == "flink":
        return [
            Diagnostic(
                Codes.E202_FLINK_REQUIRED,
                f"Model '{declaration.name}' is materialized as flink but runtime.flink is not configured",
                "Add runtime.flink with at least one cluster.",
                project.locations.get(("model", declaration.name)),
            )
        ]
    if isinstance(declaration, Test) and declaration.type == "continuous":
        return [
            Diagnostic(
                Codes.E207_CONTINUOUS_TEST_WITHOUT_FLINK,
                f"Continuous test '{declaration.name}' requires a Flink cluster",
                "Add runtime.flink, or change the test type to schema or sample.",
                project.locations.get(("test", declaration.name)),
            )
        ]
    return []


def _enables(_flink: FlinkRuntime) -> tuple[str, ...]:
    return ("flink",)


SECTION = ConfigSection(
    path=f"runtime.{NAME}",
    model=FlinkRuntime,
    keys=KEYS,
    extra="flink",
    check=check,
    enables=_enables,
    check_declaration=check_declaration,
)
