"""`streamt import` against the devstack broker and registry: 50 topics, mixed formats, a registry outage."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]

SR_TYPE = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
SENTINEL = "sr-import-sentinel-91c2"


def _register(registry: str, subject: str, schema: str, schema_type: str | None = None) -> None:
    body: dict[str, Any] = {"schema": schema}
    if schema_type:
        body["schemaType"] = schema_type
    response = requests.post(
        f"{registry}/subjects/{subject}/versions", data=json.dumps(body), headers=SR_TYPE, timeout=10
    )
    assert response.status_code == 200, response.text


def _avro(i: int) -> str:
    fields = [{"name": "id", "type": "string"}, {"name": f"amount_{i}", "type": ["null", "long"], "default": None}]
    return json.dumps({"type": "record", "name": f"r{i}", "fields": fields})


def _json_schema(i: int) -> str:
    return json.dumps(
        {
            "type": "object",
            "properties": {"key": {"type": "string"}, f"at_{i}": {"type": "string", "format": "date-time"}},
        }
    )


@pytest.fixture(scope="module")
def fifty_topics(kafka_bootstrap: str, schema_registry_url: str) -> Iterator[tuple[str, dict[str, str]]]:
    """50 topics: i%4 == 0 Avro, 1 JSON Schema, 2 Protobuf, 3 no subject; plus one internal-looking topic.

    Made once per module (about 7 s to create, as much to remove): the tests only read them.
    """
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    prefix = f"imp{uuid.uuid4().hex[:8]}"
    names = [f"{prefix}.t{i:02d}" for i in range(50)]
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(n, 1, 1) for n in [*names, f"_{prefix}.internal"]], raise_errors=False)
    kinds: dict[str, str] = {}
    for i, name in enumerate(names):
        kind = ("avro", "json", "protobuf", "none")[i % 4]
        kinds[name] = kind
        if kind == "avro":
            _register(schema_registry_url, f"{name}-value", _avro(i))
        elif kind == "json":
            _register(schema_registry_url, f"{name}-value", _json_schema(i), "JSON")
        elif kind == "protobuf":
            _register(
                schema_registry_url,
                f"{name}-value",
                f'syntax = "proto3";\nmessage M{i} {{ string id = 1; }}\n',
                "PROTOBUF",
            )
    try:
        yield prefix, kinds
    finally:
        admin.delete_topics([*names, f"_{prefix}.internal"], raise_errors=False)
        admin.close()
        for name, kind in kinds.items():
            if kind != "none":
                requests.delete(f"{schema_registry_url}/subjects/{name}-value", timeout=10)
                requests.delete(f"{schema_registry_url}/subjects/{name}-value?permanent=true", timeout=10)


class _FlakyRegistry(ThreadingHTTPServer):
    """Forwards the first ``healthy`` GETs to the real registry, then answers 503 (an outage)."""

    def __init__(self, upstream: str, healthy: int) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream, self.healthy, self.seen = upstream, healthy, 0


class _Forward(BaseHTTPRequestHandler):
    server: _FlakyRegistry

    def do_GET(self) -> None:
        self.server.seen += 1
        if self.server.seen > self.server.healthy:
            self.send_response(503)
            self.end_headers()
            return
        base = self.server.upstream.split("/apis/")[0]
        upstream = requests.get(base + self.path, timeout=10)
        self.send_response(upstream.status_code)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(upstream.content)

    def log_message(self, *args: Any) -> None:
        pass


def _project(root: Path, bootstrap: str, registry: str) -> Path:
    from streamt_testing import write_project

    runtime = {
        "kafka": {"bootstrap_servers": bootstrap},
        "schema_registry": {"url": registry, "username": "streamt", "password": SENTINEL},
    }
    return write_project(root, {"stream_project.yml": {"project": {"name": "imp"}, "runtime": runtime}})


def test_import_of_fifty_topics_with_mixed_formats(
    tmp_path, fifty_topics, kafka_bootstrap, schema_registry_url, streamt_cli
):
    prefix, kinds = fifty_topics
    root = _project(tmp_path / "p", kafka_bootstrap, schema_registry_url)
    preview = streamt_cli("import", "-p", root, "--include", f"{prefix}.*", "--include", f"_{prefix}.*", "--dry-run")
    assert preview.ok, preview.envelope
    assert not (root / "sources").exists()  # a dry run writes nothing
    done = streamt_cli("import", "-p", root, "--include", f"{prefix}.*", "--include", f"_{prefix}.*")
    assert done.ok and done.data["created_files"] == ["sources/imported.kafka.yml"]
    assert done.data["declarations"] == preview.data["declarations"]  # preview is exactly what gets written
    topics = [r["topic"] for r in done.data["resources"]]
    assert topics == sorted(kinds) and done.data["counts"]["imported"] == 50
    assert done.data["discovery"]["access"] == "read_only" and done.data["discovery"]["internal_topics_skipped"] >= 1
    by_topic = {d["topic"]: d for d in done.data["declarations"]}
    for name, kind in kinds.items():
        source = by_topic[name]
        assert source["ownership"] == {"mode": "external"} and source["name"] == name.replace(".", "_")
        lookup = next(r for r in done.data["resources"] if r["topic"] == name)["completeness"]["schema_lookup"]
        if kind == "none":
            assert "schema" not in source and lookup["status"] == "not_found"
            continue
        assert lookup["status"] == "resolved" and isinstance(source["schema"]["version"], int)
        assert source["schema"]["format"] == kind and source["schema"]["subject"] == f"{name}-value"
        if kind == "protobuf":
            assert "columns" not in source
        else:
            assert source["columns"][0]["name"] in ("id", "key")
    i = 4
    assert by_topic[f"{prefix}.t{i:02d}"]["columns"] == [
        {"name": "id", "type": "STRING"},
        {"name": f"amount_{i}", "type": "BIGINT"},
    ]
    assert by_topic[f"{prefix}.t05"]["columns"][1] == {"name": "at_5", "type": "TIMESTAMP(3)"}
    assert SENTINEL not in done.stdout and schema_registry_url not in done.stdout and kafka_bootstrap not in done.stdout
    again = streamt_cli("import", "-p", root, "--include", f"{prefix}.*")
    assert again.ok and again.data["counts"]["already_declared"] == 50 and again.data["created_files"] == []
    assert streamt_cli("validate", "-p", root).ok
    exists = streamt_cli("import", "-p", root, "--include", f"{prefix}.t0*", "--exclude", "*", "--dry-run")
    assert exists.ok and exists.data["counts"]["imported"] == 0


def test_registry_outage_mid_run_degrades_to_kafka_only(
    tmp_path, fifty_topics, kafka_bootstrap, schema_registry_url, streamt_cli
):
    prefix, _ = fifty_topics
    flaky = _FlakyRegistry(schema_registry_url, healthy=10)
    # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
    thread = threading.Thread(target=flaky.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        proxy = f"http://127.0.0.1:{flaky.server_address[1]}/apis/ccompat/v7"
        root = _project(tmp_path / "p", kafka_bootstrap, proxy)
        done = streamt_cli("import", "-p", root, "--include", f"{prefix}.*")
    finally:
        flaky.shutdown()
    assert done.ok and done.warning_codes == ["W107_SCHEMA_ENRICHMENT_SKIPPED"]
    assert flaky.seen == 11  # ten answers, one failure, then no further requests
    statuses = [r["completeness"]["schema_lookup"]["status"] for r in done.data["resources"]]
    assert statuses[10] == "failed" and set(statuses[11:]) == {"skipped_after_outage"} and len(statuses) == 50
    assert done.data["discovery"]["enrichment"]["availability"] == "outage"
    assert done.data["counts"]["imported"] == 50  # Kafka-only import continued
    assert all("schema" not in d for d in done.data["declarations"][10:])
    assert proxy not in done.stdout and str(flaky.server_address[1]) not in done.stdout


def test_a_closed_registry_port_skips_every_lookup_after_the_first(
    tmp_path, fifty_topics, kafka_bootstrap, streamt_cli
):
    prefix, _ = fifty_topics
    root = _project(tmp_path / "p", kafka_bootstrap, "http://127.0.0.1:9/apis/ccompat/v7")
    done = streamt_cli("import", "-p", root, "--include", f"{prefix}.t0*", "--dry-run")
    assert done.ok and done.warning_codes == ["W107_SCHEMA_ENRICHMENT_SKIPPED"]
    statuses = [r["completeness"]["schema_lookup"]["status"] for r in done.data["resources"]]
    assert statuses == ["failed"] + ["skipped_after_outage"] * 9
    assert done.data["resources"][0]["completeness"]["schema_lookup"]["reason"] == "E406_CONNECTION_REFUSED"


def test_no_schemas_and_collisions_and_unreachable_kafka(
    tmp_path, kafka_bootstrap, schema_registry_url, streamt_cli, monkeypatch
):
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    prefix = f"imc{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(f"{prefix}.a-b", 1, 1), NewTopic(f"{prefix}.a.b", 1, 1)], raise_errors=False)
    try:
        root = _project(tmp_path / "p", kafka_bootstrap, schema_registry_url)
        collided = streamt_cli("import", "-p", root, "--include", f"{prefix}.*")
        assert collided.error_codes == ["E703_IMPORT_NAME_COLLISION"] and not (root / "sources").exists()
        plain = streamt_cli("import", "-p", root, "--include", f"{prefix}.a-b", "--no-schemas")
        assert plain.ok and plain.data["discovery"]["enrichment"]["requests"] == 0
        assert plain.data["resources"][0]["completeness"]["schema_lookup"]["status"] == "not_requested"
        other = _project(tmp_path / "r", kafka_bootstrap, schema_registry_url)
        (other / "sources").mkdir()
        (other / "sources" / "x.yml").write_text("sources: []\n")
        args = ("import", "-p", other, "--include", f"{prefix}.a.b", "--output-file", "sources/x.yml")
        warned = streamt_cli(*args, "--dry-run")
        assert warned.ok and warned.warning_codes == ["W108_IMPORT_TARGET_EXISTS"]
        refused = streamt_cli(*args)
        assert refused.error_codes == ["E702_IMPORT_TARGET_EXISTS"]
        assert (other / "sources" / "x.yml").read_text() == "sources: []\n"
    finally:
        admin.delete_topics([f"{prefix}.a-b", f"{prefix}.a.b"], raise_errors=False)
        admin.close()
    closed = _project(tmp_path / "q", "127.0.0.1:9", schema_registry_url)
    monkeypatch.setenv("STREAMT_KAFKA_CONNECT_TIMEOUT", "0.3")  # refused at once; the default retries for 8 s
    failed = streamt_cli("import", "-p", closed)
    assert failed.error_codes == ["E701_IMPORT_DISCOVERY_FAILED"] and "127.0.0.1:9" not in failed.stdout
