"""`streamt init --discover`: a new project from the same read-only discovery as import."""

from __future__ import annotations

import json
import uuid

import pytest
import requests

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_init_discover_builds_a_valid_project(tmp_path, kafka_bootstrap, schema_registry_url, streamt_cli) -> None:
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    prefix = f"ini{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(f"{prefix}.orders", 1, 1), NewTopic(f"{prefix}.skip", 1, 1)], raise_errors=False)
    schema = json.dumps({"type": "record", "name": "o", "fields": [{"name": "order_id", "type": "string"}]})
    requests.post(
        f"{schema_registry_url}/subjects/{prefix}.orders-value/versions",
        data=json.dumps({"schema": schema}),
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
        timeout=10,
    ).raise_for_status()
    root = tmp_path / "new"
    args = ["init", "--discover", "--project-dir", root, "--kafka", kafka_bootstrap]
    args += ["--schema-registry", schema_registry_url, "--include", f"{prefix}.*", "--exclude", "*.skip"]
    try:
        preview = streamt_cli(*args, "--dry-run")
        assert preview.ok and not root.exists()
        assert preview.data["files"] == [
            "stream_project.yml",
            "sources/discovered.kafka.yml",
            ".schema/project.schema.json",
            ".schema/environment.schema.json",
            ".schema/declarations.schema.json",
            ".gitignore",
        ]
        created = streamt_cli(*args)
        assert created.ok and created.data["declarations"] == preview.data["declarations"]
        # Progress of the two network phases on stderr, one start and one finish line each.
        phases = [line.split(" ", 1)[1].split(" (")[0] for line in created.stderr.splitlines()]
        assert phases == [
            "start read kafka topic metadata",
            "done read kafka topic metadata",
            "start read schema_registry schemas of 1 topic(s)",
            "done read schema_registry schemas of 1 topic(s)",
        ], created.stderr
        assert " start " not in streamt_cli(*args, "--dry-run", "--force", "--quiet").stderr
        (source,) = created.data["declarations"]
        assert source["ownership"] == {"mode": "external"} and source["columns"] == [
            {"name": "order_id", "type": "STRING"}
        ]
        assert source["schema"]["version"] == 1
        assert (root / ".gitignore").read_text().splitlines()[0] == ".streamt/"
        assert streamt_cli("validate", "-p", root).ok
        first = (root / "sources" / "discovered.kafka.yml").read_text().splitlines()[0]
        assert first == "# yaml-language-server: $schema=../.schema/declarations.schema.json"
        listed = streamt_cli("list", "sources", "-p", root)
        assert listed.ok and f"{prefix}_orders" in json.dumps(listed.data)
        again = streamt_cli(*args)
        assert again.error_codes == ["E905_OUTPUT_WRITE_FAILED"]
        assert streamt_cli("init", "--project-dir", tmp_path / "x", "--kafka", kafka_bootstrap).error_codes == [
            "E900_USAGE_ERROR"
        ]
    finally:
        admin.delete_topics([f"{prefix}.orders", f"{prefix}.skip"], raise_errors=False)
        admin.close()
        requests.delete(f"{schema_registry_url}/subjects/{prefix}.orders-value", timeout=10)
