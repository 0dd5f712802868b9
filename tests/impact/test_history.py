"""Every consecutive pair of the scripted history gives exactly the expected classification and
impacted set, in JSON, text and Markdown; plus the head-is-the-working-tree, --select and --fail-on paths."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from streamt.cli import run

sys.path.insert(0, str(Path(__file__).parent))
import history  # the scripted history, shared with the installed acceptance test
from history import EXPECTED, OP, WORKFLOWS, B, N, fields_of

SUBJECTS = [subject for subject, _ in history.STEPS[1:]]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("history") / "repo"
    return root, history.build(root)


def invoke(*args: str | Path) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([*map(str, args)], stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_the_expectations_cover_every_step() -> None:
    assert set(EXPECTED) == set(SUBJECTS)


@pytest.mark.parametrize("index", range(1, len(history.STEPS)), ids=SUBJECTS)
def test_each_consecutive_pair_in_all_three_formats(repo: tuple[Path, list[str]], index: int) -> None:
    root, commits = repo
    subject = history.STEPS[index][0]
    expected_fields, expected_impacted = EXPECTED[subject]
    base, head = commits[index - 1], commits[index]
    args = ["impact", "-p", root / history.PROJECT, "--base", base, "--head", head]

    code, out, err = invoke("-o", "json", *args)
    assert code == 0, out + err
    envelope = json.loads(out)
    data = envelope["data"]
    assert data["format_version"] == 1
    assert (data["base"]["commit"], data["head"]["commit"], data["head"]["working_tree"]) == (base, head, False)
    assert fields_of(data) == expected_fields
    assert {i["name"]: i["breaking"] for i in data["impacted"]} == expected_impacted
    assert [w["id"] for w in data["workflows"]] == WORKFLOWS.get(subject, [])
    levels = {level for fields in expected_fields.values() for level in fields.values()}
    assert data["summary"]["highest"] == max(levels, key=[N, OP, B].index)

    code, raw, _ = invoke(*args, "--format", "json")
    assert code == 0 and json.loads(raw) == data

    code, text, _ = invoke(*args)
    assert code == 0
    for (kind, name), fields in expected_fields.items():
        assert f"{kind} {name} (" in text
        for field, level in fields.items():
            assert f"[{level}] {field}:" in text
    for name, breaking in expected_impacted.items():
        assert f"{'BREAKING' if breaking else 'affected':<12} " in text and f" {name}" in text

    code, md, _ = invoke(*args, "--format", "markdown")
    assert code == 0
    assert md.startswith("<!-- streamt-impact -->\n### streamt impact: ")
    for (kind, name), fields in expected_fields.items():
        for field in fields:
            assert f"| {kind} `{name}` (" in md and f"| `{field}` |" in md
    impacted_rows = [line for line in md.splitlines() if line.startswith(("| model `", "| exposure `", "| source `"))]
    readers = {
        line.split("`")[1]: "**breaking**" in line.split("|")[3] for line in impacted_rows if line.count("|") == 5
    }
    assert readers == expected_impacted
    drawn = any(
        kind in ("source", "model", "exposure") for kind, _ in expected_fields
    )  # tests and tombstones are not lineage
    assert ("```mermaid\ngraph LR\n" in md) is drawn
    assert invoke(*args, "--format", "markdown")[1] == md  # deterministic bytes


def test_predicate_change_names_the_custom_application_and_why(repo: tuple[Path, list[str]]) -> None:
    root, commits = repo
    index = SUBJECTS.index("predicate only") + 1
    _, out, _ = invoke(
        "-o", "json", "impact", "-p", root / history.PROJECT, "--base", commits[index - 1], "--head", commits[index]
    )
    impacted = {i["name"]: i for i in json.loads(out)["data"]["impacted"]}
    fraud = impacted["fraud_detector"]
    assert (fraud["kind"], fraud["owner"], fraud["type"]) == ("exposure", "team-risk", "application")
    [reason] = fraud["reasons"]
    assert reason["resource"] == "orders_clean" and reason["via"] == ["fraud_detector"]
    assert "'amount_cents > 0' to 'amount_cents > 100'" in reason["why"]
    assert impacted["loyalty_service"]["reasons"][0]["via"] == ["revenue_per_customer", "loyalty_service"]


def test_head_defaults_to_the_working_tree(repo: tuple[Path, list[str]]) -> None:
    root, _ = repo
    project = root / history.PROJECT
    clean = project / "models" / "clean.yml"
    original = clean.read_text()
    clean.write_text(original.replace("key: customer_id", "key: order_id"))
    try:
        code, out, _ = invoke("-o", "json", "impact", "-p", project, "--base", "HEAD")
    finally:
        clean.write_text(original)
    data = json.loads(out)["data"]
    assert code == 0 and data["head"] == {"commit": None, "ref": None, "working_tree": True}
    assert fields_of(data) == {("model", "orders_clean"): {"key": B}}


def test_fail_on_thresholds(repo: tuple[Path, list[str]]) -> None:
    root, commits = repo
    project = root / history.PROJECT

    def gate(subject: str, threshold: str) -> int:
        index = SUBJECTS.index(subject) + 1
        return invoke(
            "impact", "-p", project, "--base", commits[index - 1], "--head", commits[index], "--fail-on", threshold
        )[0]

    index = SUBJECTS.index("key changed") + 1
    code, out, _ = invoke(
        "-o",
        "json",
        "impact",
        "-p",
        project,
        "--base",
        commits[index - 1],
        "--head",
        commits[index],
        "--fail-on",
        "breaking",
    )
    envelope = json.loads(out)
    assert code == 1 and envelope["status"] == "error" and envelope["errors"] == []
    assert envelope["data"]["gate"] == {"fail_on": "breaking", "met": True}
    assert gate("key changed", "breaking") == 1
    assert gate("flink setting", "breaking") == 0
    assert gate("flink setting", "operational") == 1
    assert gate("key changed", "operational") == 1  # breaking is worse than operational
    assert gate("description", "operational") == 0
    assert gate("description", "any") == 1
    assert invoke("impact", "-p", project, "--base", "HEAD", "--head", "HEAD", "--fail-on", "any")[0] == 0


def test_select_limits_the_changes_and_their_closure(repo: tuple[Path, list[str]]) -> None:
    root, commits = repo
    index = SUBJECTS.index("type narrowed") + 1
    args = ["impact", "-p", root / history.PROJECT, "--base", commits[index - 1], "--head", commits[index]]
    code, out, _ = invoke("-o", "json", *args, "--select", "revenue_per_customer")
    data = json.loads(out)["data"]
    assert code == 0 and fields_of(data) == {("model", "revenue_per_customer"): {"compiled.flink_job": OP}}
    assert data["impacted"] == []
    code, out, _ = invoke("-o", "json", *args, "--select", "no_such_model")
    assert code == 1 and json.loads(out)["errors"][0]["code"] == "E900_USAGE_ERROR"


def test_the_json_shape_is_exactly_the_documented_one(repo: tuple[Path, list[str]]) -> None:
    """format_version 1: keys may only be added with a documentation change; this pins them."""
    root, commits = repo
    index = SUBJECTS.index("column removed") + 1
    _, out, _ = invoke(
        "impact",
        "-p",
        root / history.PROJECT,
        "--base",
        commits[index - 1],
        "--head",
        commits[index],
        "--format",
        "json",
    )
    data = json.loads(out)
    assert sorted(data) == [
        "base",
        "changes",
        "environment",
        "format_version",
        "gate",
        "head",
        "impacted",
        "summary",
        "workflows",
    ]
    assert sorted(data["base"]) == sorted(data["head"]) == ["commit", "ref", "working_tree"]
    assert sorted(data["summary"]) == [
        "breaking",
        "highest",
        "impacted",
        "impacted_breaking",
        "impacted_by_type",
        "impacted_exposures",
        "non_breaking",
        "operational",
        "resources_changed",
        "security",
    ]
    assert sorted(data["gate"]) == ["fail_on", "met"]
    change = data["changes"][0]
    assert sorted(change) == ["advice", "artifacts", "classification", "fields", "kind", "name", "owner", "status"]
    assert sorted(change["advice"][0]) == [
        "blocked",
        "commands",
        "description",
        "identity",
        "kind",
        "reason",
        "setting",
        "state_compatible",
        "summary",
        "upgrade_mode",
        "workflow",
    ]
    assert sorted(change["fields"][0]) == ["after", "before", "classification", "field", "reason", "workflow"]
    assert sorted(change["artifacts"][0]) == ["identity", "kind", "status"]
    impacted = data["impacted"][0]
    assert sorted(impacted) == ["breaking", "effect", "kind", "name", "owner", "reasons", "type"]
    assert sorted(impacted["reasons"][0]) == ["breaking", "field", "kind", "resource", "security", "via", "why"]
    assert sorted(data["workflows"][0]) == ["description", "id"]
    documented = (Path(__file__).resolve().parents[2] / "docs" / "commands" / "impact.md").read_text()
    for key in (
        "impacted_exposures",
        "impacted_by_type",
        "working_tree",
        "resources_changed",
        '"gate"',
        '"via"',
        '"artifacts"',
        '"advice"',
        '"state_compatible"',
        '"effect"',
    ):
        assert key in documented


def test_the_ci_recipes_run_real_options_and_post_the_markdown() -> None:
    """examples/ci/: each job renders --format markdown, posts it found by its marker, and gates on a real level."""
    import yaml
    from streamt_impact.command import impact_command
    from streamt_impact.render import MARKER

    levels = next(p for p in impact_command.params if p.name == "fail_on").type.choices  # type: ignore[attr-defined]
    recipes = Path(__file__).resolve().parents[2] / "examples" / "ci"
    for name in ("github-actions.yml", "gitlab-ci.yml"):
        text = (recipes / name).read_text()
        yaml.safe_load(text)
        assert "--format markdown > impact.md" in text and MARKER in text
        gates = [
            line.split("--fail-on ")[1].split()[0]
            for line in text.splitlines()
            if "streamt impact" in line and "--fail-on " in line
        ]
        assert gates and all(level in levels for level in gates)
