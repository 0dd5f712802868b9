"""streamt plugin: the packaged Kafka Streams runner.

Registered through the ``streamt`` entry-point group. Compiles ``topic`` models with
``executor: kafka_streams`` into runner plan artifacts (``kafka_streams/<model>.json``). The
image and ``runtime.kafka_streams`` checks are core validation; this plugin reports SQL outside
the runner subset (E501). ``runtime build`` builds the runner image; online plans observe runner
containers on Docker by their ownership labels, and apply creates them (``online``, ``deploy``).
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Materialization, hookimpl


@hookimpl
def streamt_materializations() -> list[Any]:
    return [
        Materialization(
            name="kafka_streams",
            description="Kafka Streams runner executing a topic model's SQL",
            extra="kstreams",
            runtime_sections=("runtime.kafka_streams",),
        ),
    ]


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
    from streamt.sdk import Model

    from streamt_kstreams.plan import compile_plan, runs_on_kafka_streams

    if isinstance(declaration, Model) and runs_on_kafka_streams(declaration):
        return [compile_plan(project, declaration)]
    return []


@hookimpl
def streamt_observers(runtime: Any) -> list[Any]:
    from streamt_kstreams.online import KafkaStreamsObserver

    return [KafkaStreamsObserver(runtime)]


@hookimpl
def streamt_planners() -> list[Any]:
    from streamt_kstreams.online import KafkaStreamsPlanner

    return [KafkaStreamsPlanner()]


@hookimpl
def streamt_deployers(runtime: Any) -> list[Any]:
    from streamt_kstreams.deploy import KafkaStreamsDeployer

    return [KafkaStreamsDeployer(runtime)]


@hookimpl
def streamt_commands(cli: Any) -> None:
    from streamt_kstreams.commands import build_command
    from streamt_kstreams.state_commands import resume_command, runner_status_command

    runtime = cli.add_group("runtime", "Build and inspect packaged runtimes.")
    runtime.add_command(build_command)
    state = cli.add_group("state", "Inspect and administer deployment state.")
    state.add_command(runner_status_command)
    state.add_command(resume_command)
