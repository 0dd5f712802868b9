"""streamt plugin: Flink SQL jobs.

Registered through the ``streamt`` entry-point group. Compiles models materialized ``flink`` (and
``topic`` models with SQL and the default executor, as ``<model>_processor``) into Flink SQL job
artifacts, and continuous tests into ``test_<test>`` jobs. Compiler modules are imported inside
the hooks: the CLI imports this module at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import ErrorCode, Materialization, hookimpl

if TYPE_CHECKING:
    from streamt.sdk import ConfigSection, Deployer, Observer, Planner, Runtime, RuntimeReader, TestRunner


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [
        Materialization(
            name="flink",
            description="Flink SQL job writing to a Kafka topic",
            extra="flink",
            runtime_sections=("runtime.flink",),
        ),
    ]


@hookimpl
def streamt_artifact_kinds() -> list[Any]:
    from streamt_flink.kinds import KINDS

    return list(KINDS)


@hookimpl
def streamt_config_sections() -> list[ConfigSection]:
    from streamt_flink.config import SECTION
    from streamt_flink.settings import SECTIONS

    return [SECTION, *SECTIONS]


@hookimpl
def streamt_validate(project: Any, env: str) -> list[Any]:
    from streamt_flink.validation import check

    return check(project)


@hookimpl
def streamt_compile(project: Any, declaration: Any, env: str) -> list[Any]:
    from streamt.sdk import Test

    # Core sends continuous tests (kinds.TEST_JOB) and the models a Flink job runs (kinds.FLINK_JOB).
    if isinstance(declaration, Test):
        from streamt_flink.continuous import compile_test, failures_topic_artifact

        artifact = compile_test(project, declaration)
        return [artifact, failures_topic_artifact(project, artifact)] if artifact is not None else []
    from streamt_flink.job import compile_model

    return [compile_model(project, declaration)]


@hookimpl
def streamt_planners() -> list[Planner]:
    from streamt_flink.planning import FlinkJobPlanner

    return [FlinkJobPlanner()]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[Observer]:
    from streamt_flink.planning import FlinkJobObserver

    return [FlinkJobObserver(runtime)]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[Deployer]:
    from streamt_flink.deployers import FlinkJobDeployer

    return [FlinkJobDeployer(runtime)]


@hookimpl
def streamt_runtime_readers(runtime: Runtime) -> list[RuntimeReader]:
    from streamt_flink.metrics import FlinkJobRuntimeReader

    return [FlinkJobRuntimeReader(runtime)]


@hookimpl
def streamt_test_runners(runtime: Runtime) -> list[TestRunner]:
    from streamt_flink.continuous_tests import ContinuousTestRunner

    return [ContinuousTestRunner(runtime)]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    from streamt_flink.codes import UPSERT_KEY_NULLABLE

    return [UPSERT_KEY_NULLABLE]
