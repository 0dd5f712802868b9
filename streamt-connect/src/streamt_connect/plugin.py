"""streamt plugin: Kafka Connect sink connectors.

Registered through the ``streamt`` entry-point group. Compiles ``sink`` models into connector
artifacts. It owns ``runtime.connect`` (``streamt_config_sections``), whose declaration check reports
a sink without connector settings (E204) or without ``runtime.connect`` (E205); ``streamt_validate``
adds an unknown connector short name, and a key the chosen connector does not accept when streamt
knows its keys (both E204). It also owns the ``lifecycle.connector_removals`` tombstone
(``tombstone``, ``removal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import Materialization, hookimpl

if TYPE_CHECKING:
    from streamt.sdk import Deployer, Observer, Planner, Runtime


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [
        Materialization(
            name="sink",
            description="Kafka Connect sink connector",
            extra="connect",
            runtime_sections=("runtime.connect",),
        ),
    ]


@hookimpl
def streamt_removal_kinds() -> list[Any]:
    from streamt_connect.tombstone import REMOVAL

    return [REMOVAL]


@hookimpl
def streamt_artifact_kinds() -> list[Any]:
    from streamt_connect.kinds import KINDS

    return list(KINDS)


@hookimpl
def streamt_config_sections() -> list[Any]:
    from streamt_connect.config import SECTION
    from streamt_connect.settings import SECTIONS

    return [SECTION, *SECTIONS]


@hookimpl
def streamt_validate(project: Any, env: str) -> list[Any]:
    from streamt_connect.compiler import sink_problem

    found = []
    for model in project.models:
        if model.materialized == "sink":
            diagnostic = sink_problem(model, project.locations.get(("model", model.name)))
            if diagnostic is not None:
                found.append(diagnostic)
    return found


@hookimpl
def streamt_compile(project: Any, declaration: Any, env: str) -> list[Any]:
    # Core sends the `sink` models (kinds.CONNECTOR).
    from streamt_connect.compiler import compile_sink

    return [compile_sink(project, declaration)]


@hookimpl
def streamt_planners() -> list[Planner]:
    from streamt_connect.live import ConnectorPlanner
    from streamt_connect.removal import ConnectorRemovalPlanner

    return [ConnectorPlanner(), ConnectorRemovalPlanner()]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[Observer]:
    from streamt_connect.live import ConnectorObserver
    from streamt_connect.removal import ConnectorRemovalObserver

    return [ConnectorObserver(runtime), ConnectorRemovalObserver(runtime)]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[Deployer]:
    from streamt_connect.deployers import ConnectorDeployer
    from streamt_connect.removal import ConnectorRemovalDeployer

    return [ConnectorDeployer(runtime), ConnectorRemovalDeployer(runtime)]
