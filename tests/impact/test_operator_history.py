"""The operator cases of issue 32 on a scripted Git history, through the CLI in text, JSON and Markdown:
a sensitive column's mask removed, a Flink model renamed, a topic renamed under a Flink reader, a Flink
change under each upgrade_mode, a GROUP BY key change, a Kafka Streams projection change."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from streamt.cli import run
from streamt_impact.gitread import Repository
from streamt_impact.render import markdown, text
from streamt_impact.report import build
from streamt_impact.snapshot import Side, take

sys.path.insert(0, str(Path(__file__).parent))
from agree import agree
from history import git

RUNTIME = {
    "kafka": {"bootstrap_servers": "${KAFKA_BOOTSTRAP}"},
    "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://localhost:8081"}}},
    "kafka_streams": {"image": "sha256:" + "b" * 64, "docker_network": "shop", "initial_offset": "latest"},
    "gateway": {"admin_url": "http://localhost:8888", "proxy_bootstrap": "localhost:6969"},
}
SOURCE = {
    "name": "payments",
    "topic": "shop.payments",
    "columns": [
        {"name": "id", "type": "STRING"},
        {"name": "card", "type": "STRING", "classification": "sensitive"},
        {"name": "amount", "type": "BIGINT"},
    ],
}
MASKED = {
    "name": "payments_view",
    "sql": "SELECT * FROM {{ source('payments') }} WHERE amount > 0",
    "gateway": {"virtual_topic": {"name": "shop.payments.view"}},
    "security": {"policies": [{"mask": {"column": "card", "method": "redact"}}]},
}
TOTALS = {
    "name": "totals",
    "materialized": "flink",
    "sql": "SELECT id, SUM(amount) AS total FROM {{ source('payments') }} WHERE amount > 0 GROUP BY id",
    "advanced": {"topic": {"name": "shop.totals"}},
}
BIG = {
    "name": "big_totals",
    "materialized": "flink",
    "sql": "SELECT id, total FROM {{ ref('totals') }} WHERE total > 1000",
}
RUNNER = {
    "name": "refunds",
    "materialized": "topic",
    "executor": "kafka_streams",
    "sql": "SELECT id, amount FROM {{ source('payments') }} WHERE amount < 0",
}
APPS = [
    {
        "name": "card_audit",
        "type": "application",
        "consumes": [{"ref": "payments_view", "columns": [{"name": "card"}]}],
    },
    {"name": "ledger", "type": "application", "consumes": [{"ref": "totals", "columns": [{"name": "total"}]}]},
]


def document(models: list[dict[str, Any]]) -> str:
    # The ledger application follows the totals model through its rename.
    totals = next(m["name"] for m in models if m["name"].startswith("totals"))
    apps = [APPS[0], {**APPS[1], "consumes": [{**APPS[1]["consumes"][0], "ref": totals}]}]
    return yaml.safe_dump(
        {"project": {"name": "ops"}, "runtime": RUNTIME, "sources": [SOURCE], "models": models, "exposures": apps},
        sort_keys=False,
    )


def with_mode(model: dict[str, Any], mode: str, **changes: Any) -> dict[str, Any]:
    out = {**model, **changes}
    out["advanced"] = {**model.get("advanced", {}), "flink": {"upgrade_mode": mode, "checkpoint_interval_ms": 5000}}
    return out


def steps() -> list[tuple[str, list[dict[str, Any]]]]:
    unmasked = {**MASKED, "security": {"policies": []}}
    renamed = {**TOTALS, "name": "totals_v2"}
    big_v2 = {**BIG, "sql": BIG["sql"].replace("'totals'", "'totals_v2'")}
    topic = {**renamed, "advanced": {"topic": {"name": "shop.totals.v2"}}}
    out = [
        ("base", [MASKED, TOTALS, BIG, RUNNER]),
        ("mask removed", [unmasked, TOTALS, BIG, RUNNER]),
        ("flink model renamed", [unmasked, renamed, big_v2, RUNNER]),
        ("topic renamed", [unmasked, topic, big_v2, RUNNER]),
    ]
    sql = str(topic["sql"])
    for number, mode in enumerate(("blocked", "savepoint", "last-state", "stateless"), start=1):
        out.append((f"mode {mode}", [unmasked, with_mode(topic, mode, sql=sql), big_v2, RUNNER]))
        sql = str(topic["sql"]).replace("amount > 0", f"amount > {number}")
        out.append((f"filter under {mode}", [unmasked, with_mode(topic, mode, sql=sql), big_v2, RUNNER]))
    keyed = with_mode(
        topic, "savepoint", sql=sql.replace("SELECT id,", "SELECT card AS id,").replace("GROUP BY id", "GROUP BY card")
    )
    out.append(("mode savepoint again", [unmasked, with_mode(topic, "savepoint", sql=sql), big_v2, RUNNER]))
    out.append(("group by key changed", [unmasked, keyed, big_v2, RUNNER]))
    projection = {**RUNNER, "sql": "SELECT id FROM {{ source('payments') }} WHERE amount < 0"}
    out.append(("runner projection", [unmasked, keyed, big_v2, projection]))
    return out


STEPS = steps()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("ops") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commits = {}
    for subject, models in STEPS:
        (root / "stream_project.yml").write_text(document(models))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", subject)
        commits[subject] = git(root, "rev-parse", "HEAD")
    return root, commits


def cli(*args: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    code = run([*map(str, args)], stdout=out, stderr=io.StringIO())
    return code, out.getvalue()


def step(repo: tuple[Path, dict[str, str]], subject: str) -> tuple[dict[str, Any], str, str, str]:
    """The report of one step, checked identical between the CLI and the structure, and agreeing across formats."""
    root, commits = repo
    names = [s for s, _ in STEPS]
    base, head = commits[names[names.index(subject) - 1]], commits[subject]
    repository = Repository.containing(root)
    report = build(
        take(Side("base", base, base), repository.project_files(base), None),
        take(Side("head", head, head), repository.project_files(head), None),
    )
    shown, data, md = agree(report)
    args = ["impact", "-p", root, "--base", base, "--head", head]
    code, raw = cli(*args, "--format", "json")
    assert code == 0 and {k: v for k, v in json.loads(raw).items() if k != "gate"} == data
    assert cli(*args)[1].rstrip("\n") == text(report)
    assert cli(*args, "--format", "markdown")[1] == markdown(report)
    return data, shown, md, raw


def fields(data: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    return {(c["name"], f["field"]): (f["classification"], f["reason"]) for c in data["changes"] for f in c["fields"]}


def advice(data: dict[str, Any], name: str) -> dict[str, Any]:
    [found] = [a for c in data["changes"] if c["name"] == name for a in c["advice"]]
    return found


def test_a_removed_mask_on_a_sensitive_column_is_security(repo) -> None:
    data, _shown, md, _ = step(repo, "mask removed")
    assert fields(data)[("payments_view", "security.mask.card")][0] == "security"
    assert {i["name"]: i["effect"] for i in data["impacted"]} == {"card_audit": "security"}
    assert data["summary"]["highest"] == "security" and "### streamt impact: security" in md
    root, commits = repo
    names = [s for s, _ in STEPS]
    base, head = commits[names[0]], commits["mask removed"]
    assert cli("impact", "-p", root, "--base", base, "--head", head, "--fail-on", "security")[0] == 1


def test_a_renamed_flink_model_is_a_new_job_and_a_duplicate_writer(repo) -> None:
    data, _shown, md, _ = step(repo, "flink model renamed")
    level, reason = fields(data)[("totals_v2", "identity.flink_job")]
    assert level == "breaking" and "new consumer group streamt.ops.default.totals_v2" in reason
    assert "duplicate writer" in reason and "duplicate writer" in md


def test_a_topic_rename_names_the_flink_reader_to_redeploy(repo) -> None:
    data, _shown, _md, _ = step(repo, "topic renamed")
    level, reason = fields(data)[("totals_v2", "topic.name")]
    assert level == "breaking" and "redeploy model big_totals (they read it by name)" in reason


@pytest.mark.parametrize(
    ("mode", "workflow", "blocked", "setting"),
    [
        ("blocked", "flink_savepoint_upgrade", True, "flink.upgrade_mode: savepoint"),
        ("savepoint", "flink_savepoint_upgrade", False, None),
        ("last-state", "flink_last_state_upgrade", False, None),
        ("stateless", "flink_stateless_upgrade", False, None),
    ],
)
def test_a_flink_change_under_each_upgrade_mode(repo, mode: str, workflow: str, blocked: bool, setting: str) -> None:
    data, shown, md, _ = step(repo, f"filter under {mode}")
    given = advice(data, "totals_v2")
    assert (given["workflow"], given["blocked"], given["setting"], given["upgrade_mode"]) == (
        workflow,
        blocked,
        setting,
        "savepoint" if mode == "blocked" else mode,
    )
    for rendered in (shown, md):
        assert given["commands"][-1] in rendered


def test_a_changed_group_by_key_is_state_incompatible(repo) -> None:
    data, _shown, _md, _ = step(repo, "group by key changed")
    given = advice(data, "totals_v2")
    assert given["state_compatible"] is False and given["setting"] == "flink.upgrade_mode: stateless"


def test_a_kafka_streams_projection_change_is_blocked(repo) -> None:
    data, shown, md, _ = step(repo, "runner projection")
    given = advice(data, "refunds")
    assert given["blocked"] and given["workflow"] == "kafka_streams_replacement_blocked" and not given["commands"]
    assert "BLOCKED: " in shown and "BLOCKED: " in md
