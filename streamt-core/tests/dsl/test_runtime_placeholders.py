"""``Project.runtime_placeholder``: the ``${...}`` text behind a runtime value, never the value itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt.project import load_project

SECRET = "S3NT1NEL-kafka-pw"

SINGLE = """\
project: {name: p}
runtime:
  kafka:
    bootstrap_servers: [ '${BROKER:-localhost:9092}', 'b2:9092' ]
    sasl_username: app
    sasl_password: ${KAFKA_PW}
    ssl_key_password: literal-not-a-placeholder
  schema_registry: {url: 'http://sr:8081', password: 'user-${SR_PW:-x}'}
  gateway: {url: 'http://gw:8888', password: '${GW_PW}'}
  flink:
    clusters:
      cloud: {type: confluent, api_key: key, api_secret: '${FLINK_SECRET}'}
  connect:
    clusters:
      main: {rest_url: 'http://connect:8083', password: '$${NOT_A_PLACEHOLDER}'}
"""

ENV = {"KAFKA_PW": SECRET, "GW_PW": "gw-secret", "FLINK_SECRET": "flink-secret"}


@pytest.fixture
def single(tmp_path: Path) -> Path:
    (tmp_path / "stream_project.yml").write_text(SINGLE)
    return tmp_path


def test_placeholder_text_is_recorded_and_value_resolved(single: Path) -> None:
    project = load_project(single, process_env=ENV)
    assert project.runtime.kafka.sasl_password == SECRET  # resolved for the live commands
    assert project.runtime_placeholder("kafka.sasl_password") == "${KAFKA_PW}"
    assert project.runtime_placeholder("runtime.kafka.sasl_password") == "${KAFKA_PW}"
    assert project.runtime_placeholder("flink.clusters.cloud.api_secret") == "${FLINK_SECRET}"


def test_literals_escapes_and_unset_values_have_no_placeholder(single: Path) -> None:
    project = load_project(single, process_env=ENV)
    assert project.runtime_placeholder("kafka.ssl_key_password") is None  # literal in the file
    assert project.runtime_placeholder("kafka.sasl_username") is None
    assert project.runtime_placeholder("connect.clusters.main.password") is None  # $${..} is an escape
    connect = project.runtime.section("connect")
    assert connect is not None
    assert connect.clusters["main"].password == "${NOT_A_PLACEHOLDER}"
    assert project.runtime_placeholder("schema_registry.username") is None  # not set at all
    assert project.runtime_placeholder("nope.nothing") is None


def test_mixed_text_and_fallbacks_are_returned_as_written(single: Path) -> None:
    project = load_project(single, process_env=ENV)
    assert project.runtime_placeholder("schema_registry.password") == "user-${SR_PW:-x}"
    # a list is joined like the runtime value itself
    assert project.runtime_placeholder("kafka.bootstrap_servers") == "${BROKER:-localhost:9092},b2:9092"


def test_legacy_gateway_block_uses_the_runtime_attribute_path(single: Path) -> None:
    project = load_project(single, process_env=ENV)
    gateway = project.runtime.section("conduktor").gateway
    assert gateway is not None and gateway.password == "gw-secret"
    assert project.runtime_placeholder("conduktor.gateway.password") == "${GW_PW}"


def test_no_resolved_secret_is_recorded(single: Path) -> None:
    project = load_project(single, process_env=ENV)
    assert SECRET not in repr(project)
    assert all(SECRET not in text for text in project.runtime_placeholders.values())


def test_multi_env_reads_the_environment_file(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text("project: {name: p}\n")
    (tmp_path / "environments").mkdir()
    (tmp_path / "environments" / "prod.yml").write_text(
        "runtime: {kafka: {bootstrap_servers: 'k:9092', sasl_password: '${PROD_PW}'}}\n"
    )
    (tmp_path / "environments" / "dev.yml").write_text(
        "runtime: {kafka: {bootstrap_servers: 'k:9092', sasl_password: plain}}\n"
    )
    prod = load_project(tmp_path, env="prod", process_env={"PROD_PW": SECRET})
    assert prod.runtime_placeholder("kafka.sasl_password") == "${PROD_PW}"
    dev = load_project(tmp_path, env="dev", process_env={})
    assert dev.runtime_placeholder("kafka.sasl_password") is None


LAZY = """\
project: {name: p}
runtime:
  kafka: {bootstrap_servers: '${BROKER}', sasl_username: '${KAFKA_USER}', sasl_password: '${KAFKA_PW}'}
  schema_registry: {url: 'https://${SR_USER}:${SR_PW}@${SR_HOST}:8081'}
  connect:
    clusters:
      main: {rest_url: 'http://connect:8083', password: 'pre-${CONNECT_PW}'}
"""


def test_lazy_secrets_keep_unset_secret_placeholders_and_still_refuse_other_unset_names(tmp_path: Path) -> None:
    from streamt.errors import StreamtError

    (tmp_path / "stream_project.yml").write_text(LAZY)
    settings = {"BROKER": "b:9092", "SR_HOST": "sr", "KAFKA_USER": "app"}
    project = load_project(tmp_path, process_env=settings, lazy_secrets=True)
    runtime = project.runtime
    assert runtime.kafka.sasl_password == "${KAFKA_PW}" and runtime.kafka.sasl_username == "app"
    # The userinfo of a URL is a secret; its host is not.
    assert runtime.schema_registry.url == "https://${SR_USER}:${SR_PW}@sr:8081"
    connect = runtime.section("connect")
    assert connect is not None and connect.clusters["main"].password == "pre-${CONNECT_PW}"
    # A set secret is resolved as always.
    assert (
        load_project(
            tmp_path, process_env={**settings, "KAFKA_PW": SECRET}, lazy_secrets=True
        ).runtime.kafka.sasl_password
        == SECRET
    )
    # Not a secret field: still E502, naming only what is not a secret. And strict loading is unchanged.
    with pytest.raises(StreamtError) as lazy:
        load_project(tmp_path, process_env={"BROKER": "b:9092"}, lazy_secrets=True)
    assert lazy.value.diagnostics[0].message.endswith(": KAFKA_USER, SR_HOST")
    with pytest.raises(StreamtError) as strict:
        load_project(tmp_path, process_env=settings)
    assert strict.value.diagnostics[0].message.endswith(": CONNECT_PW, KAFKA_PW, SR_PW, SR_USER")
