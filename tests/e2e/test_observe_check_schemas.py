"""``validate --check-schemas`` against the devstack registry: read-only, references, findings, errors."""

from __future__ import annotations

import http.server
import json
import threading
import uuid
from collections.abc import Iterator

import pytest

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.schema_registry]
CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
MONEY = {"type": "record", "name": "Money", "namespace": "x", "fields": [{"name": "cents", "type": "long"}]}
PAY = {"type": "record", "name": "Pay", "namespace": "x",
       "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "x.Money"},
                  {"name": "note", "type": ["null", "string"], "default": None}]}  # fmt: skip
PROTO_MONEY = 'syntax = "proto3";\npackage p;\nmessage Money { int64 cents = 1; }\n'
PROTO_PAY = 'syntax = "proto3";\npackage p;\nimport "money.proto";\nmessage Pay { p.Money amount = 1; }\n'


@pytest.fixture
def subjects(schema_registry_url: str) -> Iterator[dict[str, str]]:
    s = f"ext-{uuid.uuid4().hex[:8]}"
    names = {k: f"{s}-{k}" for k in ("money", "pay", "json", "pmoney", "ppay")}

    def register(subject: str, body: dict) -> None:
        response = requests.post(
            f"{schema_registry_url}/subjects/{subject}/versions", json=body, headers=CT, timeout=10
        )
        assert response.status_code == 200, response.text

    register(names["money"], {"schema": json.dumps(MONEY)})
    register(names["pay"], {"schema": json.dumps(PAY),
                            "references": [{"name": "x.Money", "subject": names["money"], "version": 1}]})  # fmt: skip
    register(names["json"], {"schemaType": "JSON", "schema": json.dumps(
        {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}})})  # fmt: skip
    register(names["pmoney"], {"schemaType": "PROTOBUF", "schema": PROTO_MONEY})
    money_ref = [{"name": "money.proto", "subject": names["pmoney"], "version": 1}]
    register(names["ppay"], {"schemaType": "PROTOBUF", "schema": PROTO_PAY, "references": money_ref})
    yield names
    for subject in names.values():
        requests.delete(f"{schema_registry_url}/subjects/{subject}", timeout=10)
        requests.delete(f"{schema_registry_url}/subjects/{subject}?permanent=true", timeout=10)


def project_with(url: str, sources: list[dict]) -> dict:
    return {"stream_project.yml": {
        "project": {"name": "checks"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"},
                    "schema_registry": {"url": url, "username": "u", "password": "sr-secret-sentinel-55"}},
        "sources": sources,
    }}  # fmt: skip


def external(name: str, subject: str, fmt: str, columns: list[dict], version: int | None = None) -> dict:
    schema = {"subject": subject, "format": fmt, **({"version": version} if version else {})}
    return {"name": name, "topic": f"t.{name}", "schema": schema, "columns": columns}


def versions(url: str, names: dict[str, str]) -> dict[str, list[int]]:
    return {s: requests.get(f"{url}/subjects/{s}/versions", timeout=10).json() for s in names.values()}


def test_check_schemas_decodes_resolves_references_and_compares_columns(
    subjects, schema_registry_url, streamt_cli, streamt_project
) -> None:
    before = versions(schema_registry_url, subjects)
    project = streamt_project(project_with(schema_registry_url, [
        external("pay", subjects["pay"], "avro", [
            {"name": "id", "type": "STRING"},            # matches
            {"name": "note", "type": "BIGINT"},          # W301: registered STRING
            {"name": "missing", "type": "STRING"},       # W102: no such field
        ], version=1),
        external("stock", subjects["json"], "json", [{"name": "sku", "type": "STRING"},
                                                     {"name": "qty", "type": "BIGINT"}]),
        external("ppay", subjects["ppay"], "protobuf", []),
    ]))  # fmt: skip
    offline = streamt_cli("validate", "-p", project)
    assert offline.ok and "schemas" not in offline.data  # without the flag: no registry contact
    checked = streamt_cli("validate", "-p", project, "--check-schemas")
    assert checked.ok, checked.envelope  # warnings only
    facts = {f["source"]: f for f in checked.data["schemas"]}
    assert facts["pay"]["version"] == 1 and facts["pay"]["format"] == "AVRO"
    assert facts["pay"]["references"] == [f"{subjects['money']}@1"]
    assert {"name": "amount", "type": "STRING"} in facts["pay"]["columns"]  # a named type: its shape is not a column
    assert facts["stock"]["format"] == "JSON" and facts["stock"]["columns"][0] == {"name": "sku", "type": "STRING"}
    assert facts["ppay"]["columns"] is None and facts["ppay"]["references"] == [f"{subjects['pmoney']}@1"]
    schema_codes = ("W102_MISSING_SOURCE_COLUMN", "W301_COLUMN_TYPE_MISMATCH")
    found = sorted((w["code"], w.get("column")) for w in checked.envelope["warnings"] if w["code"] in schema_codes)
    assert found == [("W102_MISSING_SOURCE_COLUMN", "missing"), ("W301_COLUMN_TYPE_MISMATCH", "note")]
    strict = streamt_cli("validate", "-p", project, "--check-schemas", "--strict")
    assert set(schema_codes) <= set(strict.error_codes) and not strict.ok
    assert versions(schema_registry_url, subjects) == before  # nothing registered or changed
    assert "sr-secret-sentinel-55" not in json.dumps(checked.envelope) + checked.stdout + checked.stderr


def test_missing_versions_and_wrong_formats_are_errors(subjects, schema_registry_url, streamt_cli, streamt_project):
    project = streamt_project(project_with(schema_registry_url, [
        external("gone", subjects["pay"], "avro", [], version=7),
        external("wrong", subjects["json"], "avro", []),
        external("nobody", subjects["pay"] + "-nope", "avro", []),
    ]))  # fmt: skip
    outcome = streamt_cli("validate", "-p", project, "--check-schemas")
    assert outcome.error_codes == ["E402_SCHEMA_INCOMPATIBLE"] * 3
    messages = " ".join(e["message"] for e in outcome.envelope["errors"])
    assert "no version 7" in messages and "is JSON, declared AVRO" in messages and "no registered version" in messages


class _Refuse(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_unreachable_registry_is_e406_and_refused_credentials_e404(streamt_cli, streamt_project) -> None:
    sources = [external("pay", "some-value", "avro", [])]
    down = streamt_cli(
        "validate", "-p", streamt_project(project_with("http://127.0.0.1:1", sources)), "--check-schemas"
    )
    assert down.error_codes == ["E406_CONNECTION_REFUSED"]
    server = http.server.HTTPServer(("127.0.0.1", 0), _Refuse)
    # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        refused = streamt_cli(
            "validate", "-p", streamt_project(project_with(url, sources), name="p2"), "--check-schemas"
        )
        assert refused.error_codes == ["E404_AUTH_FAILED"]
        assert "sr-secret-sentinel-55" not in json.dumps(refused.envelope) + refused.stderr
    finally:
        server.shutdown()
