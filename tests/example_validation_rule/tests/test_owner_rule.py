"""The owner rule, tested the way a plugin author would: with the streamt_testing fixtures."""

from __future__ import annotations

import pytest
import streamt_owner_rule
from streamt_testing.contracts import ValidationRuleContract

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
    },
    "models/orders.yml": {
        "models": [
            {"name": "owned", "owner": "team-checkout", "sql": "SELECT * FROM {{ source('orders_raw') }}"},
            {"name": "orphan", "sql": "SELECT * FROM {{ source('orders_raw') }}"},
        ]
    },
}


@pytest.fixture
def rule(streamt_plugin):
    return streamt_plugin(streamt_owner_rule, name="owner-rule", isolated=True)


def test_a_model_without_a_team_is_an_error_at_its_line(rule, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(PROJECT))
    # Isolated, only this rule's plugin is loaded: core also reports E903 for the topic models that
    # no installed plugin compiles. What is tested here is the rule's own finding.
    (error,) = [e for e in outcome.envelope["errors"] if e["code"] != "E903_PLUGIN_REQUIRED"]
    assert error["code"] == "E960_MODEL_OWNER_MISSING"
    assert error["message"] == "Model 'orphan' names no owning team." and error["model"] == "orphan"
    assert error["location"] == "models/orders.yml:5:3"  # the orphan's entry


def test_the_text_output_names_the_rule(rule, streamt_project, streamt_cli_text) -> None:
    outcome = streamt_cli_text("validate", "-p", streamt_project(PROJECT))
    assert outcome.exit_code == 1 and "E960_MODEL_OWNER_MISSING" in outcome.stdout + outcome.stderr


class TestOwnerRuleContract(ValidationRuleContract):
    """The conformance kit: registered code, a location at the model, a suggestion, no secret."""

    @pytest.fixture
    def rule_plugin(self):
        return streamt_owner_rule

    @pytest.fixture
    def rule_project(self, streamt_project):
        return streamt_project(PROJECT)

    @pytest.fixture
    def rule_codes(self):
        return ["E960_MODEL_OWNER_MISSING"]
