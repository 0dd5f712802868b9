"""Reviewed predicate-only runner replacement against the real Docker Engine and broker.

create -> records -> edit the SQL predicate -> `plan --out` (format 6) -> `apply --plan` -> the output
topic carries the new predicate's records, the consumer group's committed offsets never went
backwards (no record before the replacement comes out twice), exactly one serial increment, one
candidate container, and a final `plan` is a no-op. Tampered, stale and unknown-operation files are
refused before any runtime call. The same journey runs from the installed wheels in
tests/packaging (``format_6_journey`` takes the CLI to run). The imported-source journey imports a
legacy topic, creates a runner on it, then replaces its predicate. Helpers and fixtures (one runner
image per run) come from the runner's own e2e module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

# --import-mode=importlib does not put this folder on sys.path; the runner's e2e module is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_runner as runner
from test_kstreams_runner import (
    EXPECTED,
    STREAMT,
    applied,
    committed,
    ok,
    processed,
    produce,
    runners,
    starter,
    streamt,
    wait_committed,
)

# The runner module's fixtures, shared by name (one runner image per run).
engine, runner_image, cleanup = runner.engine, runner.runner_image, runner.cleanup


@pytest.fixture(scope="module")
def env(docker_host: str, kafka_bootstrap: str) -> dict[str, str]:
    # Each runner wait may take longer than the default 60 s on a loaded CI machine; it is a bound, not a delay.
    return {"DOCKER_HOST": docker_host, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "STREAMT_RUNNER_TIMEOUT": "180"}


pytestmark = [pytest.mark.kafka, pytest.mark.docker]

# Produced after the replacement: the old predicate (amount >= 100) would keep both, the new one (>= 300) o-6 only.
AFTER = [b'{"id": "o-5", "amount": 250, "paid": true}', b'{"id": "o-6", "amount": 400, "paid": true}']


def state(root: Path) -> dict[str, Any]:
    return json.loads((root / ".streamt" / "state" / "default.json").read_text())


# `apply --emit-openlineage` of a format-6 plan: the ordinary apply lifecycle, through a File transport.
LINEAGE = ["--emit-openlineage", "--openlineage-job-namespace", "streamt-e2e-replacement"]


def lineage_log(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment that points OpenLineage at a fresh JSON Lines file, and that file."""
    log = tmp_path / "openlineage.jsonl"
    config = tmp_path / "openlineage.yml"
    config.write_text(json.dumps({"transport": {"type": "file", "log_file_path": str(log)}}))  # JSON is YAML
    return {"OPENLINEAGE_CONFIG": str(config)}, log


def lineage_events(log: Path) -> list[tuple[str, str]]:
    """``(eventType, runId)`` of every event emitted so far."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [(event["eventType"], event["run"]["runId"]) for event in map(json.loads, lines)]


def errors(completed: Any) -> list[str]:
    return [e["code"] for e in json.loads(completed.stdout)["errors"]]


def created_with_records(
    tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup, cli: list[str] = STREAMT
) -> tuple[Path, str, str]:
    """The starter created and fed its samples; returns (root, name, application id) with offsets committed."""
    root, name = starter(tmp_path, runner_image, env, cleanup, cli=cli)
    ok(streamt("apply", "-p", root, env=env, cli=cli))
    raw = f"{name}.orders.raw.v1"
    produce(kafka_bootstrap, raw, (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    app_id = f"streamt-{name}-default-eligible_orders"
    assert [v for _, v in processed(kafka_bootstrap, app_id, raw, 4, f"{name}.orders.eligible.v1")] == EXPECTED
    assert wait_committed(kafka_bootstrap, app_id, raw, 4) == {0: 4}
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 100", "amount >= 300"))
    return root, name, app_id


def format_6_journey(cli: list[str], tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup) -> None:
    """create -> records -> predicate edit -> refusals -> reviewed replacement -> records -> no-op, through ``cli``."""

    def run(*args: Any, env: dict[str, str] = env) -> Any:
        return streamt(*args, env=env, cli=cli)

    root, name, app_id = created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup, cli)
    (old,) = runners(engine, name)
    serial = state(root)["serial"]

    # Direct apply and --force stay refused: only the reviewed file takes the coordinator path.
    refused = run("apply", "-p", root, "--force")
    assert errors(refused) == ["E417_SAFETY_BLOCKED"]
    assert (
        "save it as a format-6 plan with `streamt plan --out FILE`"
        in json.loads(refused.stdout)["errors"][0]["suggestion"]
    )
    plan_file = tmp_path / "filter-change.json"
    planned = ok(run("plan", "-p", root, "--out", plan_file))
    assert planned["kafka_streams_replacement"]["saved"] is True
    assert planned["kafka_streams_replacement"]["next_commands"] == [f"streamt apply --plan {plan_file}"]
    document = json.loads(plan_file.read_text())
    binding = document["kafka_streams_replacement"]
    assert document["format_version"] == 6 and binding["offset_lower_bounds"] == {"0": 4}
    assert (binding["container_id"], binding["generation"], binding["application_id"]) == (old.id, 1, app_id)
    assert binding["volume"] == f"{app_id}-state" and binding["image"] == runner_image

    # A tampered copy is refused (E408) before any runtime call; the old runner keeps running.
    tampered = tmp_path / "tampered.json"
    tampered.write_text(plan_file.read_text().replace('"generation": 1', '"generation": 7'))
    assert errors(run("apply", "-p", root, "--plan", tampered)) == ["E408_PLAN_FILE_INVALID"]
    assert [c.id for c in runners(engine, name)] == [old.id]
    # Edited after review, the file is stale (E409); so is a resume of an operation that never began.
    models = root / "models" / "orders.yml"
    reviewed = models.read_text()
    models.write_text(reviewed.replace("amount >= 300", "amount >= 301"))
    assert errors(run("apply", "-p", root, "--plan", plan_file)) == ["E409_PLAN_STALE"]
    unknown = ["--plan", plan_file, "--operation-id", "00000000-0000-4000-8000-000000000000"]
    assert errors(run("state", "resume", "-p", root, *unknown)) == ["E409_PLAN_STALE"]
    old.reload()
    assert [c.id for c in runners(engine, name)] == [old.id] and old.status == "running"
    models.write_text(reviewed)  # back to the reviewed definition: the file applies again

    lineage_env, log = lineage_log(tmp_path)
    dry = ok(run("apply", "-p", root, "--plan", plan_file, "--dry-run", *LINEAGE, env={**env, **lineage_env}))
    assert dry["dry_run"] is True and [c.id for c in runners(engine, name)] == [old.id]
    assert lineage_events(log) == []  # --dry-run emits nothing

    replaced = ok(
        run("apply", "-p", root, "--plan", plan_file, "--runner-timeout", "120", *LINEAGE, env={**env, **lineage_env})
    )
    assert replaced["committed"] is True and replaced["kafka_streams_replacement"]["committed"] is True
    # The same lifecycle as an ordinary apply: START once the intent is durable, COMPLETE after the commit.
    operation_id = replaced["kafka_streams_replacement"]["operation_id"]
    assert lineage_events(log) == [("START", operation_id), ("COMPLETE", operation_id)]
    (candidate,) = runners(engine, name)
    assert candidate.id != old.id and candidate.name == f"{app_id}-g2"
    assert [m["Name"] for m in candidate.attrs["Mounts"]] == [f"{app_id}-state"]
    assert state(root)["serial"] == serial + 1
    (record,) = [r for r in state(root)["resources"] if r["kind"] == "kafka_streams_job"]
    assert record["attributes"]["container_id"] == candidate.id and record["attributes"]["generation"] == 2

    raw = f"{name}.orders.raw.v1"
    assert committed(kafka_bootstrap, app_id, raw)[0] >= 4  # resumed, never reset
    produce(kafka_bootstrap, raw, AFTER)
    out = [v for _, v in processed(kafka_bootstrap, app_id, raw, 6, f"{name}.orders.eligible.v1")]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]  # nothing reprocessed, the new predicate applies
    assert wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}

    final = ok(run("plan", "-p", root))
    assert final["counts"]["noop"] == len(final["actions"]) and not final["safety_blockers"]
    assert "kafka_streams_replacement" not in final
    # The reviewed file is spent: its state reference no longer matches.
    assert errors(run("apply", "-p", root, "--plan", plan_file)) == ["E409_PLAN_STALE"]
    assert [c.id for c in runners(engine, name)] == [candidate.id] and state(root)["serial"] == serial + 1


def test_predicate_replacement_from_a_format_6_plan(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    format_6_journey(STREAMT, tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)


def test_imported_source_create_noop_health_then_predicate_replacement(
    tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup
):
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    root, name = starter(tmp_path, runner_image, env, cleanup)
    legacy = f"{name}.legacy.payments"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(legacy, 1, 1)])
    admin.close()
    produce(kafka_bootstrap, legacy, [b'{"id": "p-1", "amount": 5, "paid": true}'])  # before streamt knew it
    ok(streamt("import", "-p", root, "--include", legacy, "--no-schemas", env=env))
    imported = yaml.safe_load((root / "sources" / "imported.kafka.yml").read_text())
    (source,) = imported["sources"]
    # The user declares the columns the runner types the values with (no schema in the registry).
    source["columns"] = [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}]
    (root / "sources" / "imported.kafka.yml").write_text(yaml.safe_dump(imported, sort_keys=False))
    relation = '{{ source("' + source["name"] + '") }}'
    model = {
        "name": "big_payments",
        "ownership": {"mode": "managed"},
        "materialized": "topic",
        "executor": "kafka_streams",
        "sql": f"SELECT id, amount AS units FROM {relation} WHERE amount > 10",
        "advanced": {"topic": {"name": f"{name}.payments.big.v1"}},
    }
    models = root / "models" / "orders.yml"
    models.write_text(yaml.safe_dump({"models": [model]}))
    (root / "exposures" / "fraud_app.yml").unlink()
    output = f"{name}.payments.big.v1"
    created = ok(streamt("apply", "-p", root, env=env))
    assert applied(created) == {legacy: "unchanged", output: "created", "big_payments": "created"}
    produce(kafka_bootstrap, legacy, [b'{"id": "p-2", "amount": 50}', b'{"id": "p-3", "amount": 10}'])
    app_id = f"streamt-{name}-default-big_payments"
    # p-1 (5) predates the runner and is read from the start (earliest), then filtered out like p-3 (10).
    assert processed(kafka_bootstrap, app_id, legacy, 3, output) == [(b"k0", {"id": "p-2", "units": 50})]
    assert wait_committed(kafka_bootstrap, app_id, legacy, 3) == {0: 3}
    assert set(applied(ok(streamt("apply", "-p", root, env=env))).values()) == {"unchanged"}
    assert streamt("status", "-p", root, "--health", env=env).returncode == 0

    model["sql"] = model["sql"].replace("amount > 10", "amount > 40")
    models.write_text(yaml.safe_dump({"models": [model]}))
    plan_file = tmp_path / "imported-filter.json"
    assert ok(streamt("plan", "-p", root, "--out", plan_file, env=env))["kafka_streams_replacement"]["saved"]
    serial = state(root)["serial"]
    ok(streamt("apply", "-p", root, "--plan", plan_file, env=env))
    produce(kafka_bootstrap, legacy, [b'{"id": "p-4", "amount": 30}', b'{"id": "p-5", "amount": 60}'])
    assert [v["id"] for _, v in processed(kafka_bootstrap, app_id, legacy, 5, output)] == ["p-2", "p-5"]
    assert wait_committed(kafka_bootstrap, app_id, legacy, 5) == {0: 5}
    assert state(root)["serial"] == serial + 1 and len(runners(engine, name)) == 1
    final = ok(streamt("plan", "-p", root, env=env))
    assert final["counts"]["noop"] == len(final["actions"])  # the imported topic stays a declaration-only no-op
