"""streamt plugin: the packaged Kafka Streams runner.

Registered through the ``streamt`` entry-point group. Compiles ``topic`` models with
``executor: kafka_streams`` into runner plan artifacts (``kafka_streams/<model>.json``). It owns
``runtime.kafka_streams`` (``streamt_config_sections``: the image, network and offset checks, and
E208 for a model without it); ``streamt_validate`` reports SQL outside the runner subset (E501).
``runtime build`` builds the runner image; online plans observe runner containers on Docker by
their ownership labels, and apply creates them (``online``, ``deploy``).
It also owns the ``init --executor kafka_streams`` starter (``starter``) and plan format 6, the
reviewed replacement field of the plan file (``planfile``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import Materialization, hookimpl

if TYPE_CHECKING:
    from streamt.sdk import Deployer, InitStarter, Observer, PlanFileExtension, Planner, Runtime

# name -> (import path, the command's help). Command modules are imported only when the command
# runs (or its own --help is asked for): `streamt --help` pays for none of them.
_RUNTIME_COMMANDS = {
    "build": (
        "streamt_kstreams.commands:build_command",
        "Build the packaged Kafka Streams runner image (no tag, no push).",
    ),
}
_STATE_COMMANDS = {
    "runner-status": (
        "streamt_kstreams.state_commands:runner_status_command",
        "Inspect one reviewed Kafka Streams replacement (read-only, under the state lock).",
    ),
    "resume": (
        "streamt_kstreams.state_commands:resume_command",
        "Continue one interrupted Kafka Streams replacement (same plan file and operation UUID).",
    ),
}


@hookimpl
def streamt_init_starters() -> list[InitStarter]:
    from streamt_kstreams.starter import STARTER

    return [STARTER]


@hookimpl
def streamt_plan_file_extensions() -> list[PlanFileExtension]:
    from streamt_kstreams.planfile import EXTENSION

    return [EXTENSION]


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [
        Materialization(
            name="kafka_streams",
            description="Kafka Streams runner executing a topic model's SQL",
            extra="kstreams",
            runtime_sections=("runtime.kafka_streams",),
        ),
    ]


@hookimpl
def streamt_artifact_kinds() -> list[Any]:
    from streamt_kstreams.kinds import KINDS

    return list(KINDS)


@hookimpl
def streamt_config_sections() -> list[Any]:
    from streamt_kstreams.config import SECTION

    return [SECTION]


@hookimpl
def streamt_validate(project: Any, env: str) -> list[Any]:
    from streamt.sdk import StreamtError

    from streamt_kstreams.plan import check, runs_on_kafka_streams

    found = []
    for model in project.models:
        if runs_on_kafka_streams(model):
            try:
                check(project, model)
            except StreamtError as error:
                found.extend(error.diagnostics)
    return found


@hookimpl
def streamt_compile(project: Any, declaration: Any, env: str) -> list[Any]:
    from streamt_kstreams.plan import compile_plan

    # Core sends the models whose runner plan this plugin registers (kinds.KAFKA_STREAMS_JOB).
    return [compile_plan(project, declaration)]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[Observer]:
    from streamt_kstreams.online import KafkaStreamsObserver

    return [KafkaStreamsObserver(runtime)]


@hookimpl
def streamt_planners() -> list[Planner]:
    from streamt_kstreams.planner import KafkaStreamsPlanner

    return [KafkaStreamsPlanner()]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[Deployer]:
    from streamt_kstreams.deploy import KafkaStreamsDeployer

    return [KafkaStreamsDeployer(runtime)]


@hookimpl
def streamt_commands(cli: Any) -> None:
    runtime = cli.add_group("runtime", "Build and inspect packaged runtimes.")
    for name, (path, help_text) in _RUNTIME_COMMANDS.items():
        runtime.add_lazy_command(name, path, help_text, shorten=True)
    state = cli.add_group("state", "Inspect and administer deployment state.")
    for name, (path, help_text) in _STATE_COMMANDS.items():
        state.add_lazy_command(name, path, help_text, shorten=True)
