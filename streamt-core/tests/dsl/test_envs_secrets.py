"""``envs list`` / ``envs show``: secrets are masked everywhere, in both output modes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
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


UNSET_ENV_FILE = f"""\
environment: {{name: staging, description: Staging}}
runtime:
  kafka:
    bootstrap_servers: ${{STAGING_BROKERS}}
    sasl_username: ${{STAGING_USER}}
    sasl_password: ${{STAGING_PASSWORD}}
    sasl_jaas_config: "user=${{STAGING_USER}} password=${{STAGING_JAAS_PW:-{SENTINEL}-fallback}}"
  schema_registry:
    url: https://${{SR_USER}}:${{SR_PASSWORD}}@sr.example.com
    password: ${{SR_PASSWORD:-{SENTINEL}-default}}
  flink:
    clusters:
      cloud:
        type: confluent
        api_key: ${{FLINK_KEY}}
        api_secret: ${{FLINK_SECRET}}
"""


@pytest.fixture
def unset_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "environments" / "staging.yml").write_text(UNSET_ENV_FILE)
    for name in ("STAGING_BROKERS", "STAGING_USER", "STAGING_PASSWORD", "SR_USER", "SR_PASSWORD", "FLINK_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FLINK_KEY", SENTINEL + "-flink-key")  # set: resolved, then masked
    return project


def test_envs_show_with_unset_variables_shows_placeholders(unset_project: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run(["-o", "json", "envs", "show", "staging", "-p", str(unset_project)], stdout=out, stderr=err) == 0
    envelope = json.loads(out.getvalue())
    assert envelope["status"] == "ok" and envelope["errors"] == []
    kafka = envelope["data"]["config"]["runtime"]["kafka"]
    assert kafka["bootstrap_servers"] == "${STAGING_BROKERS}"  # not secret, not set: shown as written
    assert kafka["sasl_username"] == "${STAGING_USER}"
    assert kafka["sasl_password"] == "****"  # secret keys stay masked, set or not
    assert kafka["sasl_jaas_config"] == "****"
    assert envelope["data"]["config"]["runtime"]["schema_registry"]["url"] == "https://****@sr.example.com"
    assert envelope["data"]["unresolved"] == [
        "FLINK_SECRET",
        "SR_PASSWORD",
        "SR_USER",
        "STAGING_BROKERS",
        "STAGING_PASSWORD",
        "STAGING_USER",
    ]
    assert SENTINEL not in out.getvalue() + err.getvalue()


def test_envs_show_with_unset_variables_in_text(unset_project: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run(["envs", "show", "staging", "-p", str(unset_project)], stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert "bootstrap_servers: ${STAGING_BROKERS}" in text
    assert "sasl_password: '****'" in text
    assert text.rstrip().splitlines()[-1].startswith("# not set (shown as ${NAME}): FLINK_SECRET, SR_PASSWORD")
    assert SENTINEL not in text + err.getvalue()
    assert yaml.safe_load(text)["environment"]["name"] == "staging"  # still one YAML document
