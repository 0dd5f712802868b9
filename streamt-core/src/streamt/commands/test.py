"""`streamt test`: run the project's data-quality tests through the installed runners."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option, quiet_option
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.plugins import get_plugins
from streamt.progress import for_command
from streamt.project.loader import load_project
from streamt.result import Result
from streamt.runlineage.lifecycle import guarded, prepare
from streamt.runlineage.options import openlineage_options, resolve
from streamt.runlineage.run import COMPLETE, FAIL
from streamt.testrun.coverage import coverage, coverage_text
from streamt.testrun.execute import run_tests, runners_by_type
from streamt.testrun.render import summary, tests_text
from streamt.testrun.selection import select_tests
from streamt.testrun.targets import target_of
from streamt.validation import validate_project


@click.command("test")
@project_dir_option
@env_option
@click.option("--model", "model", default=None, help="Test specific model (or source) only.")
@click.option(
    "--type", "test_type", type=click.Choice(["schema", "sample", "continuous"]), default=None, help="Filter by type."
)
@click.option("--deploy", is_flag=True, help="Reserved deployment path; currently warns and runs locally.")
@click.option("--coverage", "show_coverage", is_flag=True, help="Show test coverage report (which models have tests).")
@quiet_option
@openlineage_options(
    kafka_help="Sample-input namespace; falls back to STREAMT_OPENLINEAGE_KAFKA_NAMESPACE or safe Kafka bootstrap "
    "derivation.",
    gateway_help="Validated shared Gateway namespace option; test inputs still use Kafka because the runner "
    "consumes runtime.kafka.",
)
def test_command(
    project_dir: str,
    env: str | None,
    model: str | None,
    test_type: str | None,
    deploy: bool,
    show_coverage: bool,
    quiet: bool,
    emit_openlineage: bool,
    ol_job_namespace: str | None,
    ol_kafka_namespace: str | None,
    ol_gateway_namespace: str | None,
) -> Result:
    """Run data quality tests."""
    project = load_project(project_dir, env)
    report = validate_project(project)
    if report.errors:
        raise StreamtError.from_diagnostics(list(report.errors))
    base: dict[str, Any] = {"project": project.name, "environment": project.env}
    if show_coverage:
        data = {**base, "coverage": coverage(project)}
        return Result("test", data=data, text=coverage_text(data["coverage"]), warnings=report.warnings)
    warnings = list(report.warnings)
    if deploy:
        warnings.append(
            Diagnostic(
                Codes.W123_TEST_DEPLOY_RESERVED,
                "--deploy is reserved: the tests ran locally and nothing was deployed.",
                "Deploy continuous tests with `streamt plan` and `streamt apply`.",
            )
        )
    tests = select_tests(project, model, test_type)
    # Coverage, an empty selection and --deploy emit no run (the reference's test section).
    run = None
    if emit_openlineage and tests and not deploy:
        targets = (target_of(project, t.model) for t in tests if t.type == "sample")
        topics = sorted({target.topic for target in targets if target is not None})
        namespaces = resolve(
            ol_job_namespace,
            ol_kafka_namespace,
            ol_gateway_namespace,
            project.runtime.kafka.bootstrap_servers,
            need_kafka=bool(topics),
        )
        inputs = tuple((str(namespaces.kafka), topic) for topic in topics)
        run = prepare(namespaces, f"{project.name}.{project.env}.test", inputs)
    plugins = get_plugins()
    runners = runners_by_type(plugins.call_each("streamt_test_runners", runtime=project.runtime) if tests else [])
    if run is not None:
        run.start()
    progress = for_command(quiet)
    try:
        with guarded(run):
            results = run_tests(project, tests, runners, progress=progress, plugins=plugins)
    finally:
        progress.close()
    counts = summary(results)
    data = {
        **base,
        "selection": {"model": model, "type": test_type},
        "deploy_requested": deploy,
        "tests": [r.to_json() for r in results],
        "summary": counts,
    }
    errors = tuple(r.error for r in results if r.error is not None)
    blocking = any(r.blocks for r in results)
    if run is not None:
        run.finish(FAIL if blocking else COMPLETE)
        warnings += run.warnings
    return Result(
        "test",
        data=data,
        text=tests_text(results),
        errors=_unique(errors),
        warnings=tuple(warnings),
        force_exit=1 if blocking else None,
    )


def _unique(diagnostics: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    # Ten sample tests behind one unreachable broker are one error, not ten.
    seen: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic not in seen:
            seen.append(diagnostic)
    return tuple(seen)
