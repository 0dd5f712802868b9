"""Small behaviours the CLI reference states exactly (issue 21's deltas), checked through the CLI.

None of these needs a live service: each gate or rendering answers before any provider is contacted.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from shared_material import SHARED
from streamt.cli import run
from streamt.plugins import get_plugins
from streamt.status.render import status_text
from streamt.status.report import sections
from streamt_testing import run_cli, run_cli_text

EXAMPLES = SHARED / "spec" / "examples"
PAYMENTS = EXAMPLES / "payments-pipeline"

# Every exporter distribution, with the arguments that make it succeed on the payments example.
EXPORTERS = {
    "strimzi": "export strimzi --namespace n --cluster-name c",
    "datahub": "docs datahub --catalog-id c --fabric DEV",
    "backstage": "docs backstage --catalog-id c --catalog-namespace ns --default-owner-ref group:default/a "
    "--lifecycle production --kafka-cluster-ref resource:default/k --gateway-cluster-ref resource:default/g",
    "openlineage": "docs openlineage --job-namespace j",
    "asyncapi": "docs asyncapi",
    "odcs": "docs odcs --contract-id c --status active",
}


@pytest.mark.skipif(not PAYMENTS.is_dir(), reason="the shared spec examples are not beside this checkout")
@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
def test_exporters_in_json_mode_put_warnings_only_in_the_envelope(
    exporter: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    to_file = () if exporter == "asyncapi" else ("--output-file", str(tmp_path / "out"))  # asyncapi prints only
    for extra in ((), to_file):
        stdout, stderr = io.StringIO(), io.StringIO()
        code = run(["-o", "json", *EXPORTERS[exporter].split(), *extra, "--project-dir", str(PAYMENTS)], stdout, stderr)
        assert code == 0, stdout.getvalue()
        assert stderr.getvalue() == "" and capfd.readouterr().err == "", extra
    # In text mode the same warnings do reach stderr, so the JSON check above can fail.
    if exporter != "asyncapi":  # the payments example gives AsyncAPI nothing to warn about
        text = run_cli_text(*EXPORTERS[exporter].split(), "--project-dir", PAYMENTS)
        assert text.exit_code == 0 and "warning W" in text.stderr


def _remote_state_project(root: Path) -> Path:
    (root / "environments").mkdir()
    (root / "stream_project.yml").write_text(
        "project: {name: gate}\nmodels:\n  - name: orders\n    topic: {name: gate.orders.v1}\n"
    )
    # An unreachable broker: any provider access would be E4xx/E5xx from Kafka, not the gate.
    (root / "environments" / "dev.yml").write_text(
        "runtime: {kafka: {bootstrap_servers: '127.0.0.1:9'}}\nsafety: {require_remote_state: true}\n"
    )
    return root


@pytest.mark.parametrize(
    "confirmation",
    [
        (),  # non-interactive without flags: would be E414
        ("--confirm-resource", "streamt://gate/dev/topic/orders"),  # half a confirmation: would be E414
        ("--confirm-resource", "streamt://gate/dev/topic/wrong", "--confirm-env", "dev"),  # wrong token: E414
    ],
)
def test_adopt_checks_the_remote_state_gate_before_the_confirmation(tmp_path: Path, confirmation: Any) -> None:
    project = _remote_state_project(tmp_path)
    outcome = run_cli("adopt", "-p", project, "--env", "dev", "--kind", "topic", "--name", "orders", *confirmation)
    assert outcome.error_codes == ["E421_REMOTE_STATE_REQUIRED"]
    assert not (project / ".streamt").exists()


def _status_text(report: dict[str, Any]) -> str:
    return status_text(report, sections(get_plugins()))


def _report(**lists: list[dict[str, Any]]) -> dict[str, Any]:
    topic = {"name": "orders.clean.v1", "status": "OK", "exists": True, "partitions": 12, "replication_factor": 3}
    return {"topics": [topic], **lists}


def test_status_summary_is_the_reference_line_when_everything_was_observed() -> None:
    text = _status_text(_report(flink_jobs=[{"name": "order_metrics", "status": "RUNNING", "exists": True}]))
    assert text.splitlines()[-1] == "Summary: Topics: 1 OK, 0 missing | Jobs: 1 running, 0 other"


def test_status_summary_names_unobserved_jobs_only_when_there_are_some() -> None:
    jobs = [{"name": "order_metrics", "status": "NOT_OBSERVED", "exists": False}]
    text = _status_text(_report(flink_jobs=jobs))
    assert text.splitlines()[-1] == "Summary: Topics: 1 OK, 0 missing | Jobs: 0 running, 0 other, 1 not observed"


def test_list_pluralizes_its_count(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(
        "project: {name: plural}\nruntime: {kafka: {bootstrap_servers: 'k:9092'}}\n"
        "models:\n  - name: one\n    topic: {name: plural.one.v1}\n"
    )
    single = run_cli_text("list", "models", "-p", tmp_path)
    assert single.exit_code == 0 and single.stdout.splitlines()[0] == "1 model"
    (tmp_path / "stream_project.yml").write_text(
        (tmp_path / "stream_project.yml").read_text() + "  - name: two\n    topic: {name: plural.two.v1}\n"
    )
    assert run_cli_text("list", "models", "-p", tmp_path).stdout.splitlines()[0] == "2 models"


def test_status_summary_counts_connectors_apart_from_jobs() -> None:
    connectors = [{"name": "orders_sink", "status": "RUNNING", "exists": True}]
    text = _status_text(_report(connectors=connectors))
    assert (
        text.splitlines()[-1]
        == "Summary: Topics: 1 OK, 0 missing | Jobs: 0 running, 0 other | Connectors: 1 running, 0 other"
    )
    jobs = [{"name": "order_metrics", "status": "NOT_OBSERVED", "exists": False}]
    text = _status_text(_report(flink_jobs=jobs, connectors=[{"name": "c", "status": "FAILED", "exists": True}]))
    assert text.splitlines()[-1].endswith("| Jobs: 0 running, 0 other, 1 not observed | Connectors: 0 running, 1 other")
