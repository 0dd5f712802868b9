"""Validation codes not covered by the example mutations, each triggered through the CLI in both output modes.

Every case edits the clean project of ``conftest.base_files`` (which validates with no finding), so the
code under test is the only finding, or one of a known few.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

GATEWAY_RUNTIME = "  conduktor: {gateway: {admin_url: 'http://gw:8888', proxy_bootstrap: 'gw:6969'}}\n"


def _append(relative: str, text: str) -> Callable[[dict[str, str]], None]:
    def edit(files: dict[str, str]) -> None:
        files[relative] = files.get(relative, "") + text

    return edit


def _replace(relative: str, old: str, new: str) -> Callable[[dict[str, str]], None]:
    def edit(files: dict[str, str]) -> None:
        assert old in files[relative], f"anchor missing in {relative}: {old!r}"
        files[relative] = files[relative].replace(old, new, 1)

    return edit


def _both(*edits: Callable[[dict[str, str]], None]) -> Callable[[dict[str, str]], None]:
    def edit(files: dict[str, str]) -> None:
        for one in edits:
            one(files)

    return edit


# code -> (edit, fragment the message must contain, every code the run reports)
CASES: dict[str, tuple[Callable[[dict[str, str]], None], str, set[str]]] = {
    "W102_MISSING_SOURCE_COLUMN": (
        _append("sources/events.yml", "    event_time: {column: ts}\n"),
        "Column 'ts' used by event_time is not declared on source 'events'",
        {"W102_MISSING_SOURCE_COLUMN"},
    ),
    "W104_RULE_MAX_RETENTION": (
        _both(
            _append("stream_project.yml", "rules: {topics: {max_retention_ms: 1000}}\n"),
            _append("models/clean.yml", "    topic: {config: {retention.ms: 5000}}\n"),
        ),
        "retention.ms 5000 exceeds the limit 1000",
        {"W104_RULE_MAX_RETENTION"},
    ),
    "W105_RULE_INVALID_OWNER": (
        _both(
            _append("stream_project.yml", "rules: {models: {valid_owners: [team-a]}}\n"),
            _append("models/clean.yml", "    owner: team-b\n"),
        ),
        "owner 'team-b' is not in rules.models.valid_owners",
        {"W105_RULE_INVALID_OWNER"},
    ),
    "W201_SQL_PARSE_WARNING": (
        _both(
            _append("stream_project.yml", GATEWAY_RUNTIME),
            _replace(
                "models/clean.yml",
                'materialized: flink\n    sql: SELECT id, amount FROM {{ source("events") }}',
                "materialized: virtual_topic\n"
                "    sql: SELECT * FROM {{ source(\"events\") }} WHERE id = 'a' OR id = 'b'",
            ),
        ),
        "which Gateway's SQL filter does not support",
        {"W201_SQL_PARSE_WARNING"},
    ),
    "W202_UNUSED_SOURCE": (
        _append("sources/events.yml", "  - {name: orphan, topic: orphan.v1, columns: [{name: id, type: STRING}]}\n"),
        "Source 'orphan' is not referenced by any model or exposure",
        {"W202_UNUSED_SOURCE"},
    ),
    "W203_SOURCE_NO_COLUMNS": (
        _replace(
            "sources/events.yml",
            "    columns:\n      - {name: id, type: STRING}\n      - {name: amount, type: INT}\n",
            "",
        ),
        "Source 'events' has no column definitions",
        {"W203_SOURCE_NO_COLUMNS"},
    ),
    "E106_ACCESS_DENIED": (
        _both(
            _append("models/clean.yml", "    group: core\n    access: private\n"),
            _append(
                "models/clean.yml",
                "  - name: outsider\n    group: other\n    materialized: flink\n"
                '    sql: SELECT id FROM {{ ref("clean") }}\n',
            ),
        ),
        "Model 'outsider' cannot reference 'clean' (restricted to group 'core')",
        {"E106_ACCESS_DENIED"},
    ),
    "E302_CONTRACT_VIOLATION": (
        _append("models/clean.yml", "    contract: {enforced: true, columns: [{name: total, type: BIGINT}]}\n"),
        "Contract of model 'clean': column 'total' is not produced",
        {"E302_CONTRACT_VIOLATION"},
    ),
    "W401_UNKNOWN_FIELD_IGNORED": (
        _both(
            _replace("stream_project.yml", "apiVersion: streamt.dev/v1alpha1\n", ""),
            _append("models/clean.yml", "    colour: blue\n"),
        ),
        "Unknown key 'models[0].colour' ignored in models/clean.yml",
        {"W401_UNKNOWN_FIELD_IGNORED"},
    ),
}


def _make(streamt_project, base_files: dict[str, str], code: str) -> Path:
    files = dict(base_files)
    CASES[code][0](files)
    return streamt_project(files)


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_in_json(code: str, streamt_project, base_files, cli) -> None:
    _edit, fragment, expected = CASES[code]
    run = cli("json", "validate", "-p", _make(streamt_project, base_files, code))
    envelope = run.envelope
    assert set(run.codes) == expected, run.codes
    finding = next(d for d in envelope["errors"] + envelope["warnings"] if d["code"] == code)
    assert fragment in finding["message"]
    assert finding["suggestion"]
    assert envelope["status"] == ("error" if code.startswith("E") else "ok")
    assert run.exit_code == (1 if code.startswith("E") else 0)
    assert envelope["data"]["valid"] is code.startswith("W")


@pytest.mark.parametrize("code", sorted(CASES))
def test_code_in_text(code: str, streamt_project, base_files, cli) -> None:
    _edit, fragment, _expected = CASES[code]
    run = cli("text", "validate", "-p", _make(streamt_project, base_files, code))
    assert code in run.stderr and fragment in run.stderr, run.text
    assert "Traceback" not in run.text
    assert run.exit_code == (1 if code.startswith("E") else 0)
    verdict = "is invalid" if code.startswith("E") else "is valid"
    assert f"Project 'demo' {verdict}" in run.stdout


@pytest.mark.parametrize("code", sorted(c for c in CASES if c.startswith("W")))
def test_warning_fails_strict(code: str, streamt_project, base_files, cli) -> None:
    run = cli("json", "validate", "--strict", "-p", _make(streamt_project, base_files, code))
    assert run.exit_code == 1
    assert code in [e["code"] for e in run.envelope["errors"]]
    assert run.envelope["warnings"] == []


def test_base_project_is_clean(streamt_project, base_files, cli) -> None:
    """The premise of every case above: without an edit there is no finding at all."""
    run = cli("json", "validate", "--strict", "-p", streamt_project(base_files))
    assert run.exit_code == 0 and run.codes == [] and run.envelope["data"]["notices"] == []


def test_a_filter_gateway_cannot_evaluate_is_reported_once_by_the_gateway_plugin(
    streamt_project, base_files, cli
) -> None:
    run = cli("json", "validate", "-p", _make(streamt_project, base_files, "W201_SQL_PARSE_WARNING"))
    assert run.codes == ["W201_SQL_PARSE_WARNING"]
    assert run.envelope["warnings"][0]["message"].startswith("Virtual topic 'clean' filters with OR")
