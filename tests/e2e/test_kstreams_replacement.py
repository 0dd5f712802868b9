"""Reviewed predicate-only runner replacement against the real Docker Engine and broker.

create -> records -> edit the SQL predicate -> `plan --out` (format 6) -> `apply --plan` -> the output
topic carries the new predicate's records, the consumer group's committed offsets never went
backwards (no record before the replacement comes out twice), exactly one serial increment, one
candidate container, and a final `plan` is a no-op. Tampered files are refused before any runtime
call. Helpers and fixtures (one runner image per run) come from the runner's own e2e module.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

# --import-mode=importlib does not put this folder on sys.path; the runner's e2e module is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_runner as runner
from test_kstreams_runner import EXPECTED, consume, ok, produce, runners, starter, streamt

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


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        offsets = admin.list_group_offsets(group).get(group) or {}
    finally:
        admin.close()
    return {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}


def wait_committed(bootstrap: str, group: str, topic: str, at_least: int, seconds: float = 60) -> dict[int, int]:
    deadline = time.monotonic() + seconds
    while True:
        found = committed(bootstrap, group, topic)
        if sum(found.values()) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


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


def created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup) -> tuple[Path, str, str]:
    """The starter created and fed its samples; returns (root, name, application id) with offsets committed."""
    root, name = starter(tmp_path, runner_image, env, cleanup)
    ok(streamt("apply", "-p", root, env=env))
    raw = f"{name}.orders.raw.v1"
    produce(kafka_bootstrap, raw, (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    assert [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 2)] == EXPECTED
    app_id = f"streamt-{name}-default-eligible_orders"
    assert wait_committed(kafka_bootstrap, app_id, raw, 4) == {0: 4}
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 100", "amount >= 300"))
    return root, name, app_id


def test_predicate_replacement_from_a_format_6_plan(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    root, name, app_id = created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)
    (old,) = runners(engine, name)
    serial = state(root)["serial"]

    # Direct apply and --force stay refused: only the reviewed file takes the coordinator path.
    refused = streamt("apply", "-p", root, "--force", env=env)
    assert errors(refused) == ["E417_SAFETY_BLOCKED"]
    assert (
        "save it as a format-6 plan with `streamt plan --out FILE`"
        in json.loads(refused.stdout)["errors"][0]["suggestion"]
    )
    plan_file = tmp_path / "filter-change.json"
    planned = ok(streamt("plan", "-p", root, "--out", plan_file, env=env))
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
    assert errors(streamt("apply", "-p", root, "--plan", tampered, env=env)) == ["E408_PLAN_FILE_INVALID"]
    assert [c.id for c in runners(engine, name)] == [old.id]
    lineage_env, log = lineage_log(tmp_path)
    dry = ok(streamt("apply", "-p", root, "--plan", plan_file, "--dry-run", *LINEAGE, env={**env, **lineage_env}))
    assert dry["dry_run"] is True and [c.id for c in runners(engine, name)] == [old.id]
    assert lineage_events(log) == []  # --dry-run emits nothing

    applied = ok(
        streamt(
            "apply", "-p", root, "--plan", plan_file, "--runner-timeout", "120", *LINEAGE, env={**env, **lineage_env}
        )
    )
    assert applied["committed"] is True and applied["kafka_streams_replacement"]["committed"] is True
    # The same lifecycle as an ordinary apply: START once the intent is durable, COMPLETE after the commit.
    operation_id = applied["kafka_streams_replacement"]["operation_id"]
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
    out = [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 3)]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]  # nothing reprocessed, the new predicate applies
    assert wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}

    final = ok(streamt("plan", "-p", root, env=env))
    assert final["counts"]["noop"] == len(final["actions"]) and not final["safety_blockers"]
    assert "kafka_streams_replacement" not in final
    # The reviewed file is spent: its state reference no longer matches.
    assert errors(streamt("apply", "-p", root, "--plan", plan_file, env=env)) == ["E409_PLAN_STALE"]
    assert [c.id for c in runners(engine, name)] == [candidate.id] and state(root)["serial"] == serial + 1


def test_predicate_replacement_on_an_imported_source(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    import yaml
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    root, name = starter(tmp_path, runner_image, env, cleanup)
    legacy = f"{name}.legacy.payments"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(legacy, 1, 1)])
    admin.close()
    ok(streamt("import", "-p", root, "--include", legacy, "--no-schemas", env=env))
    imported = yaml.safe_load((root / "sources" / "imported.kafka.yml").read_text())
    (source,) = imported["sources"]
    source["columns"] = [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}]
    (root / "sources" / "imported.kafka.yml").write_text(yaml.safe_dump(imported, sort_keys=False))
    relation = '{{ source("' + source["name"] + '") }}'
    model = {
        "name": "big_payments",
        "ownership": {"mode": "managed"},
        "materialized": "topic",
        "executor": "kafka_streams",
        "sql": f"SELECT id, amount FROM {relation} WHERE amount > 10",
        "advanced": {"topic": {"name": f"{name}.payments.big.v1"}},
    }
    models = root / "models" / "orders.yml"
    models.write_text(yaml.safe_dump({"models": [model]}))
    (root / "exposures" / "fraud_app.yml").unlink()
    ok(streamt("apply", "-p", root, env=env))
    produce(kafka_bootstrap, legacy, [b'{"id": "p-1", "amount": 50}', b'{"id": "p-2", "amount": 20}'])
    output = f"{name}.payments.big.v1"
    app_id = f"streamt-{name}-default-big_payments"
    assert [v["id"] for _, v in consume(kafka_bootstrap, output, 2)] == ["p-1", "p-2"]
    assert wait_committed(kafka_bootstrap, app_id, legacy, 2) == {0: 2}

    model["sql"] = model["sql"].replace("amount > 10", "amount > 40")
    models.write_text(yaml.safe_dump({"models": [model]}))
    plan_file = tmp_path / "imported-filter.json"
    assert ok(streamt("plan", "-p", root, "--out", plan_file, env=env))["kafka_streams_replacement"]["saved"]
    serial = state(root)["serial"]
    ok(streamt("apply", "-p", root, "--plan", plan_file, env=env))
    produce(kafka_bootstrap, legacy, [b'{"id": "p-3", "amount": 30}', b'{"id": "p-4", "amount": 60}'])
    assert [v["id"] for _, v in consume(kafka_bootstrap, output, 3)] == ["p-1", "p-2", "p-4"]
    assert wait_committed(kafka_bootstrap, app_id, legacy, 4) == {0: 4}
    assert state(root)["serial"] == serial + 1 and len(runners(engine, name)) == 1
    final = ok(streamt("plan", "-p", root, env=env))
    assert final["counts"]["noop"] == len(final["actions"])  # the imported topic stays a declaration-only no-op
