"""Removal tombstones are refused before any access on the paths that can never authorize a delete.

The project's deployment state is PostgreSQL with its DSN variables unset and its Connect and
Gateway endpoints are closed loopback ports: a gate that let the command reach the state backend
would answer a state error instead of ``E418``, and one that reached a provider ``E406``. A direct
apply does reach the state backend: a fulfilled tombstone is inert, and only the live plan can
tell (its refusal of an unfulfilled one is tested on the real stack, tests/e2e/test_connect_removal.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamt_testing import closed_port


def tombstone_project(root: Path, *, with_tombstones: bool = True, local_state: bool = False) -> Path:
    from streamt_testing import write_project

    port = closed_port()
    project: dict[str, Any] = {
        "apiVersion": "streamt.dev/v1alpha1",
        "project": {"name": "removals"},
        "runtime": {
            "kafka": {"bootstrap_servers": f"127.0.0.1:{port}"},
            "connect": {"default": "main", "clusters": {"main": {"rest_url": f"http://127.0.0.1:{port}"}}},
            "conduktor": {"gateway": {"admin_url": f"http://127.0.0.1:{port}"}},
        },
        "deployment_state": {
            "backend": "postgres",
            "namespace": "gates",
            "postgres": {"dsn_env": "GATES_UNSET_OWNER_DSN", "writer_dsn_env": "GATES_UNSET_WRITER_DSN"},
        },
        "sources": [{"name": "events", "topic": "gates.events"}],
    }
    if local_state:
        project["deployment_state"] = {"backend": "local"}
    if with_tombstones:
        project["lifecycle"] = {
            "connector_removals": [{"logical_owner": "old_sink", "name": "old_sink", "cluster": "main"}],
            "gateway_rule_removals": [
                {
                    "logical_owner": "old_view",
                    "prior_artifact": {
                        "name": "old_view",
                        "virtualTopic": "old_view",
                        "physicalTopic": "gates.events",
                        "interceptors": [],
                    },
                }
            ],
        }
    write_project(root, {"stream_project.yml": project})
    return root


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--offline"),
        ("plan", "--offline", "--out", "offline.plan.json"),
        ("apply", "--plan", "missing.plan.json", "--dry-run"),
    ],
    ids=lambda a: " ".join(a),
)
def test_paths_that_cannot_authorize_a_removal_are_e418_before_state_or_provider(
    tmp_path: Path, streamt_cli: Any, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tombstone_project(tmp_path / "p")
    monkeypatch.chdir(tmp_path)
    outcome = streamt_cli(*args, "-p", root, env={"GATES_UNSET_OWNER_DSN": None, "GATES_UNSET_WRITER_DSN": None})
    assert outcome.exit_code != 0
    [error] = outcome.envelope["errors"]
    assert error["code"] == "E418_REVIEWED_PLAN_REQUIRED", error
    assert "connector 'old_sink'" in error["message"] and "gateway rule 'old_view'" in error["message"]
    assert "--out" in error["suggestion"] and "apply" in error["suggestion"]
    assert "to delete" not in outcome.stdout
    assert not (tmp_path / "offline.plan.json").exists()
    assert not (root / ".streamt").exists()


@pytest.mark.parametrize(
    "args",
    [("apply",), ("apply", "--dry-run"), ("apply", "--target", "events"), ("apply", "--select", "events")],
    ids=lambda a: " ".join(a),
)
def test_a_direct_apply_with_tombstones_asks_the_state_backend_whether_they_are_fulfilled(
    tmp_path: Path, streamt_cli: Any, args: tuple[str, ...]
) -> None:
    root = tombstone_project(tmp_path / "p")
    outcome = streamt_cli(*args, "-p", root, env={"GATES_UNSET_OWNER_DSN": None, "GATES_UNSET_WRITER_DSN": None})
    assert outcome.exit_code != 0
    [error] = outcome.envelope["errors"]
    # Past the tombstone gate, stopped at the unconfigured state backend: never a provider (E406).
    assert error["code"] == "E420_STATE_BACKEND_UNAVAILABLE", error
    assert "writer_dsn_env is not set" in error["message"], error


def test_a_project_without_tombstones_still_plans_offline(tmp_path: Path, streamt_cli: Any) -> None:
    root = tombstone_project(tmp_path / "p", with_tombstones=False)
    outcome = streamt_cli("plan", "--offline", "-p", root)
    assert outcome.ok, outcome.envelope


def test_a_connector_removal_on_local_state_is_e420_before_any_provider_is_contacted(
    tmp_path: Path, streamt_cli: Any
) -> None:
    root = tombstone_project(tmp_path / "p", local_state=True)
    outcome = streamt_cli("plan", "-p", root)
    assert outcome.exit_code != 0
    [error] = outcome.envelope["errors"]
    # Local state cannot prove the authority a connector DELETE needs; the closed Connect port was
    # never asked (that would be E406).
    assert error["code"] == "E420_STATE_BACKEND_UNAVAILABLE", error
    assert "PostgreSQL v2" in error["message"]
