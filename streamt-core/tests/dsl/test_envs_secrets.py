"""``envs list`` / ``envs show``: secrets are masked everywhere, in both output modes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from streamt.cli import run

SENTINEL = "S3NT1NEL-secret-value"

ENV_FILE = f"""\
environment:
  name: prod
  description: Production
  protected: true
runtime:
  kafka:
    bootstrap_servers: kafka:9092
    sasl_username: app
    sasl_password: ${{PROD_PASSWORD}}
    ssl_key_password: {SENTINEL}-ssl
  schema_registry:
    url: https://user:{SENTINEL}-url@sr.example.com
    password: {SENTINEL}-sr
  flink:
    clusters:
      cloud: {{type: confluent, api_key: {SENTINEL}-key, api_secret: {SENTINEL}-apisecret}}
  connect:
    clusters:
      main: {{rest_url: 'http://connect:8083', password: {SENTINEL}-connect}}
deployment_state:
  backend: postgres
  namespace: ns
  postgres: {{dsn_env: STATE_DSN, writer_dsn_env: STATE_WRITER_DSN}}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "stream_project.yml").write_text("project: {name: p}\n")
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "prod.yml").write_text(ENV_FILE)
    (tmp_path / "environments" / "dev.yml").write_text("runtime: {kafka: {bootstrap_servers: 'localhost:9092'}}\n")
    monkeypatch.setenv("PROD_PASSWORD", SENTINEL + "-env")
    monkeypatch.setenv("STATE_DSN", f"postgresql://u:{SENTINEL}-dsn@db/x")
    return tmp_path


@pytest.mark.parametrize("mode", ["text", "json"])
def test_envs_show_masks_every_secret(project: Path, mode: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run(["-o", mode, "envs", "show", "prod", "-p", str(project)], stdout=out, stderr=err) == 0
    combined = out.getvalue() + err.getvalue()
    assert SENTINEL not in combined
    assert "****" in combined and "STATE_DSN" in combined and "kafka:9092" in combined


@pytest.mark.parametrize("mode", ["text", "json"])
def test_envs_list_shows_protection(project: Path, mode: str) -> None:
    out = io.StringIO()
    assert run(["-o", mode, "envs", "list", "-p", str(project)], stdout=out, stderr=io.StringIO()) == 0
    assert "prod" in out.getvalue() and "dev" in out.getvalue()
    assert SENTINEL not in out.getvalue()
    if mode == "text":
        assert "Production [protected]" in out.getvalue()
