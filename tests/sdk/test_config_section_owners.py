"""``runtime.flink``, ``runtime.conduktor``, ``runtime.connect``, ``runtime.kafka_streams`` and
``deployment_state.postgres`` belong to their plugins.

Core holds no class of theirs; each plugin declares its section (``streamt_config_sections``), and
what users see is what it was when these were core classes: the plan's environment fingerprint of
a project using them is pinned to the value computed before they moved.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from streamt.sdk import load_project
from streamt_connect.config import ConnectCluster, connect_runtime
from streamt_flink.config import FlinkCluster, FlinkRuntime, flink_runtime
from streamt_gateway.config import GatewayRuntime, gateway_runtime
from streamt_kstreams.config import KafkaStreamsRuntime, kafka_streams_runtime
from streamt_postgres_state.config import PostgresState, postgres_state

PROJECT = {
    "project": {"name": "fp"},
    "runtime": {
        "kafka": {
            "bootstrap_servers": "k:9092",
            "sasl_password": "pw",
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "PLAIN",
            "sasl_username": "u",
        },
        "schema_registry": {"url": "http://u:p@sr:8081"},
        "flink": {
            "default": "local",
            "clusters": {
                "local": {"type": "rest", "rest_url": "http://f:8081", "sql_gateway_url": "http://g:8083"},
                "cloud": {
                    "type": "confluent",
                    "api_key": "K",
                    "api_secret": "S",
                    "environment": "env-1",
                    "compute_pool_id": "lfcp-1",
                    "region": "eu",
                },
            },
        },
        "connect": {"clusters": {"c": {"rest_url": "http://c:8083", "password": "x"}}},
        "gateway": {"url": "http://gw:8888", "username": "admin", "password": "secret", "virtual_cluster": "vc"},
        "conduktor": {"console": {"url": "http://console", "api_key": "abc"}},
    },
    "deployment_state": {"backend": "postgres", "postgres": {"dsn_env": "STREAMT_STATE_DSN", "schema": "s1"}},
}
IMAGE = "sha256:" + "a" * 64
WITH_RUNNER = {
    **PROJECT,
    "runtime": {
        **PROJECT["runtime"],
        "kafka_streams": {"image": IMAGE, "docker_network": "streamt", "initial_offset": "earliest"},
    },
}


def test_each_plugin_reads_back_its_own_section(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(yaml.safe_dump(PROJECT))
    project = load_project(tmp_path, process_env={})
    flink = flink_runtime(project.runtime)
    assert isinstance(flink, FlinkRuntime) and flink.default_cluster == "local"
    assert flink.clusters["cloud"] == FlinkCluster(
        type="confluent", api_key="K", api_secret="S", environment="env-1", compute_pool_id="lfcp-1", region="eu"
    )
    # `runtime.gateway` is the shorthand of `runtime.conduktor.gateway`, `url` the alias of `admin_url`
    assert gateway_runtime(project.runtime) == GatewayRuntime(
        admin_url="http://gw:8888", username="admin", password="secret", virtual_cluster="vc"
    )
    assert postgres_state(project) == PostgresState(dsn_env="STREAMT_STATE_DSN", schema="s1")
    connect = connect_runtime(project.runtime)
    assert connect is not None and connect.default_cluster == "c"
    assert connect.clusters["c"] == ConnectCluster(rest_url="http://c:8083", password="x")
    assert kafka_streams_runtime(project.runtime) is None
    assert set(project.runtime.enabled) == {"flink", "virtual_topic", "sink"}


def test_the_runner_section_is_the_kstreams_plugins(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(yaml.safe_dump(WITH_RUNNER))
    project = load_project(tmp_path, process_env={})
    assert kafka_streams_runtime(project.runtime) == KafkaStreamsRuntime(
        image=IMAGE, docker_network="streamt", initial_offset="earliest"
    )


def test_the_environment_fingerprint_is_the_one_of_the_core_classes(tmp_path: Path) -> None:
    from streamt.plan.engine import environment_fingerprint

    (tmp_path / "stream_project.yml").write_text(yaml.safe_dump(PROJECT))
    fingerprint = environment_fingerprint(load_project(tmp_path, process_env={}))
    assert fingerprint == "sha256:bd45ff7810e0f867dd1fc3c17e953f64b7591d9f4439b8fc03ddb9743e1ab045"


def test_the_fingerprint_with_the_runner_section_is_the_one_of_the_core_classes(tmp_path: Path) -> None:
    from streamt.plan.engine import environment_fingerprint

    (tmp_path / "stream_project.yml").write_text(yaml.safe_dump(WITH_RUNNER))
    fingerprint = environment_fingerprint(load_project(tmp_path, process_env={}))
    # Computed on main before runtime.connect and runtime.kafka_streams left core.
    assert fingerprint == "sha256:35547a4ebbe09313f64aeaefc2259eef2f25f7e892252d0167a1eadefcfa18c7"
