"""`init --executor kafka_streams`: the starter validates, connects to nothing, and refuses bad options."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt_testing import run_cli

IMAGE = "sha256:" + "0123456789abcdef" * 4


def test_the_starter_validates_and_plans_offline(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    created = run_cli(
        "init",
        "-p",
        root,
        "--executor",
        "kafka_streams",
        "--runner-image",
        IMAGE,
        "--docker-network",
        "host",
        "--kafka-internal",
        "127.0.0.1:9092",
        "--initial-offset",
        "latest",
    )
    assert created.ok, created.envelope
    assert created.data["files"] == [
        "stream_project.yml",
        "models/orders.yml",
        "exposures/fraud_app.yml",
        "samples/orders.jsonl",
        "README.md",
        ".schema/project.schema.json",
        ".schema/environment.schema.json",
        ".schema/declarations.schema.json",
        ".gitignore",
    ]
    assert created.data["support"] == "create_noop_predicate_update"
    readme = (root / "README.md").read_text()
    assert "docs/runner-replacement.md" not in readme and "`streamt state resume --help`" in readme
    project = (root / "stream_project.yml").read_text()
    assert f"image: {IMAGE}" in project and "initial_offset: latest" in project
    assert "bootstrap_servers_internal: 127.0.0.1:9092" in project
    assert run_cli("validate", "-p", root).ok
    plan = run_cli("plan", "-p", root, "--offline")
    assert plan.ok, plan.envelope
    kinds = sorted(a["kind"] for a in plan.data["actions"])
    assert kinds == ["kafka_streams_job", "topic", "topic"]
    assert not (root / ".streamt").exists()  # offline plan and init write no state


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--executor", "kafka_streams"], "E900_USAGE_ERROR"),
        (["--executor", "kafka_streams", "--runner-image", "runner:latest"], "E501_PARSE_ERROR"),
        (["--executor", "kafka_streams", "--runner-image", IMAGE, "--discover", "--kafka", "x:1"], "E900_USAGE_ERROR"),
        (["--runner-image", IMAGE], "E900_USAGE_ERROR"),
        (["--executor", "kafka_streams", "--runner-image", IMAGE, "--docker-network", "a\nb: c"], "E900_USAGE_ERROR"),
    ],
)
def test_bad_starter_options_are_refused_before_writing(tmp_path: Path, args: list[str], code: str) -> None:
    outcome = run_cli("init", "-p", tmp_path / "p", *args)
    assert outcome.error_codes == [code]
    assert not (tmp_path / "p").exists()


def test_docker_network_is_described_as_the_reference_does(streamt_cli_text) -> None:
    text = " ".join(streamt_cli_text("init", "--help").stdout.split())
    assert "--docker-network TEXT Local Docker bridge network for the runner" in text
