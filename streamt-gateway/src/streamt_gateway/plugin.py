"""streamt plugin: Conduktor Gateway virtual topics.

Registered through the ``streamt`` entry-point group. Compiles ``virtual_topic`` models into
Gateway rule artifacts. "No Gateway configured" (E201) is the declaration check of its
``runtime.conduktor`` section; ``streamt_validate`` reports what only it knows: a filter Gateway
cannot evaluate (W201), an alias without exactly one upstream (E501), a mask method Gateway has no
rule for (W131, its own code) and a mask on a column the upstream does not produce (E436). It also
owns the ``lifecycle.gateway_rule_removals`` tombstone (``tombstone``, ``removal``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import Materialization, hookimpl

if TYPE_CHECKING:
    from streamt.sdk import ConfigSection, Deployer, ErrorCode, Observer, Planner, Runtime


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [
        Materialization(
            name="virtual_topic",
            description="Conduktor Gateway alias topic with interceptors",
            extra="gateway",
            runtime_sections=("runtime.conduktor",),
        ),
    ]


@hookimpl
def streamt_artifact_kinds() -> list[Any]:
    from streamt_gateway.kinds import KINDS

    return list(KINDS)


@hookimpl
def streamt_config_sections() -> list[ConfigSection]:
    from streamt_gateway.config import SECTION
    from streamt_gateway.settings import SECTION as MODEL_SECTION

    return [SECTION, MODEL_SECTION]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    from streamt_gateway.codes import MASK_NOT_APPLICABLE

    return [MASK_NOT_APPLICABLE]


@hookimpl
def streamt_removal_kinds() -> list[Any]:
    from streamt_gateway.tombstone import REMOVAL

    return [REMOVAL]


@hookimpl
def streamt_validate(project: Any, env: str) -> list[Any]:
    from streamt_gateway.compiler import filter_warning, mask_problems, upstream_problem

    found = []
    for model in project.models:
        if model.materialized != "virtual_topic":
            continue
        location = project.locations.get(("model", model.name))
        for diagnostic in (upstream_problem(model, location), filter_warning(model, location)):
            if diagnostic is not None:
                found.append(diagnostic)
        found += mask_problems(project, model, location)
    return found


@hookimpl
def streamt_compile(project: Any, declaration: Any, env: str) -> list[Any]:
    # Core sends the `virtual_topic` models (kinds.GATEWAY_RULE).
    from streamt_gateway.compiler import compile_rule

    return [compile_rule(project, declaration)]


@hookimpl
def streamt_planners() -> list[Planner]:
    from streamt_gateway.live import GatewayRulePlanner
    from streamt_gateway.removal import GatewayRuleRemovalPlanner

    return [GatewayRulePlanner(), GatewayRuleRemovalPlanner()]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[Observer]:
    from streamt_gateway.live import GatewayRuleObserver
    from streamt_gateway.removal import GatewayRuleRemovalObserver

    return [GatewayRuleObserver(runtime), GatewayRuleRemovalObserver(runtime)]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[Deployer]:
    from streamt_gateway.deployers import GatewayRuleDeployer
    from streamt_gateway.removal import GatewayRuleRemovalDeployer

    return [GatewayRuleDeployer(runtime), GatewayRuleRemovalDeployer(runtime)]
