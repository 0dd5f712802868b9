from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from shared_material import SHARED
from streamt.errors import StreamtError
from streamt.project.loader import load_project
from streamt_connect import plugin
from streamt_connect.compiler import compile_sink
from streamt_connect.connector import MASK_FIELD, connector_class, connector_config
from streamt_testing import compile_with

EXAMPLES = SHARED / "spec" / "examples"


def test_payments_connector_keeps_placeholders_literal() -> None:
    project = load_project(EXAMPLES / "payments-pipeline", process_env={"WAREHOUSE_PASSWORD": "hunter2"})
    [artifact] = compile_with(plugin, project, project.model("payments_to_warehouse"), "")
    assert (artifact.kind, artifact.name, artifact.identity, artifact.depends_on) == (
        "connector",
        "payments_to_warehouse",
        "card-payments.default.payments_to_warehouse",
        (("topic", "payments.clean.v1"),),
    )
    config = artifact.spec["config"]
    assert config["name"] == artifact.spec["name"] == artifact.identity
    assert config["streamt.owner"] == "card-payments/default"
    assert config["connector.class"] == "io.confluent.connect.jdbc.JdbcSinkConnector"
    assert config["topics"] == "payments.clean.v1"
    assert config["connection.password"] == "${WAREHOUSE_PASSWORD}"
    assert config["tasks.max"] == "2"
    assert "hunter2" not in str(artifact.spec)
    assert artifact.spec["cluster"] == "primary"
    assert list(config) == sorted(config)


def test_adopted_connector_keeps_its_ownership() -> None:
    project = load_project(EXAMPLES / "ownership-gateway", process_env={})
    artifact = compile_sink(project, project.model("consents_to_crm_db"))
    assert artifact.ownership == "adopted"
    assert artifact.spec["config"]["topics"] == "crm.consent-events.v1"
    # The live connector already has its name: adoption never renames it or marks it.
    assert artifact.identity == artifact.spec["name"] == "consents_to_crm_db"
    assert "streamt.owner" not in artifact.spec["config"]


def test_non_sink_models_are_not_ours() -> None:
    project = load_project(EXAMPLES / "payments-pipeline", process_env={})
    assert compile_with(plugin, project, project.model("payments_clean"), "") == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("jdbc-sink", "io.confluent.connect.jdbc.JdbcSinkConnector"),
        ("snowflake-sink", "com.snowflake.kafka.connector.SnowflakeSinkConnector"),
        ("com.example.MySink", "com.example.MySink"),
        ("mystery-sink", None),
    ],
)
def test_connector_classes(given: str, expected: str | None) -> None:
    assert connector_class(given) == expected


def test_masks_become_mask_field_transforms_before_user_transforms() -> None:
    config = connector_config(
        "c", "jdbc-sink", ["a", "b"], {"transforms": "route", "enabled": True}, [("ssn", "redact"), ("pan", "hash")]
    )
    assert config["transforms"] == "streamt_mask_ssn,streamt_mask_pan,route"
    assert config["transforms.streamt_mask_ssn.type"] == MASK_FIELD
    assert config["transforms.streamt_mask_ssn.replacement"] == "****"
    assert "transforms.streamt_mask_pan.replacement" not in config
    assert config["topics"] == "a,b" and config["enabled"] == "true"


def test_unknown_short_name_is_e204(streamt_project: Callable[..., Path]) -> None:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "k:9092"},
                    "connect": {"clusters": {"c": {"rest_url": "u"}}},
                },
                "sources": [{"name": "s", "topic": "t"}],
                "models": [{"name": "out", "from": [{"source": "s"}], "sink": {"connector": "mystery-sink"}}],
            }
        }
    )
    project = load_project(root, process_env={})
    [diagnostic] = plugin.streamt_validate(project=project, env="default")
    assert diagnostic.code.code == "E204_MISSING_SINK_CONFIG"
    with pytest.raises(StreamtError):
        compile_sink(project, project.model("out"))
