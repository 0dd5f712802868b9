"""streamt plugin: Kafka topics and Schema Registry subjects.

Registered through the ``streamt`` entry-point group: compilation,
planning, live observation and deployment of topics and subjects. Modules
are imported inside the hooks (and clients inside observers and deployers)
so that loading the plugin for ``--help`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import Materialization, hookimpl

if TYPE_CHECKING:
    from streamt.sdk import Deployer, DiscoverySource, Observer, Planner, Runtime, RuntimeReader, TestRunner


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [
        Materialization(
            name="topic",
            description="Kafka topic per model",
            extra="kafka",
            runtime_sections=("runtime.kafka", "runtime.schema_registry"),
        ),
    ]


@hookimpl
def streamt_artifact_kinds() -> list[Any]:
    from streamt_kafka.kinds import KINDS

    return list(KINDS)


@hookimpl
def streamt_compile(project: Any, declaration: Any) -> list[Any]:
    from streamt.sdk import Source

    from streamt_kafka.schemas import schema_artifact
    from streamt_kafka.topics import model_topic, source_topic

    # Core sends sources and the models whose topic this plugin registers (kinds.TOPIC).
    if isinstance(declaration, Source):
        schema = schema_artifact(declaration)
        return [source_topic(project, declaration), *([schema] if schema else [])]
    return [model_topic(project, declaration)]


@hookimpl
def streamt_validate(project: Any) -> list[Any]:
    from streamt_kafka.checks import compaction_problems

    return compaction_problems(project)


@hookimpl
def streamt_planners() -> list[Planner]:
    from streamt_kafka.planning import SchemaPlanner, TopicPlanner

    return [TopicPlanner(), SchemaPlanner()]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[Observer]:
    from streamt_kafka.observers import SchemaObserver, TopicObserver

    return [TopicObserver(runtime), SchemaObserver(runtime)]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[Deployer]:
    from streamt_kafka.deployers import SchemaDeployer, TopicDeployer

    return [TopicDeployer(runtime), SchemaDeployer(runtime)]


@hookimpl
def streamt_runtime_readers(runtime: Runtime) -> list[RuntimeReader]:
    from streamt_kafka.runtime_reader import TopicRuntimeReader

    return [TopicRuntimeReader(runtime)]


@hookimpl
def streamt_source_discoverers(runtime: Runtime) -> list[DiscoverySource]:
    from streamt_kafka.discovery import KafkaSourceDiscoverer

    return [KafkaSourceDiscoverer(runtime)]


@hookimpl
def streamt_test_runners(runtime: Runtime) -> list[TestRunner]:
    from streamt_kafka.sample_tests import SampleTestRunner
    from streamt_kafka.schema_tests import SchemaTestRunner

    return [SchemaTestRunner(runtime), SampleTestRunner(runtime)]
