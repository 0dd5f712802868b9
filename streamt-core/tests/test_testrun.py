"""streamt.testrun with fake runners: selection, ordering, runner conflicts and gaps, severity, rendering."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from streamt.errors import Codes, StreamtError
from streamt.project.loader import load_project
from streamt.testrun import FAILED, PASSED, AssertionResult, RunnerReport, TestCase
from streamt.testrun.execute import run_tests, runners_by_type
from streamt.testrun.render import tests_text as render_text
from streamt.testrun.selection import select_tests
from streamt_testing import write_project

TESTS = [
    {"name": "c1", "model": "orders", "type": "continuous", "assertions": [{"not_null": {"columns": ["id"]}}]},
    {"name": "s1", "model": "orders", "type": "sample", "assertions": [{"not_null": {"columns": ["id"]}}]},
    {"name": "k1", "model": "orders", "type": "schema", "assertions": [{"not_null": {"columns": ["id"]}}]},
    {
        "name": "s2",
        "model": "orders",
        "type": "sample",
        "on_failure": {"severity": "warning"},
        "assertions": [{"range": {"column": "id", "min": 0}}, {"max_lag": {"column": "id", "max_seconds": 1}}],
    },
]


@pytest.fixture
def project(tmp_path: Path) -> Any:
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}, "flink": {"clusters": {"x": {}}}},
            "sources": [{"name": "orders", "topic": "orders", "columns": [{"name": "id", "type": "STRING"}]}],
            "tests": TESTS,
        }
    }
    return load_project(write_project(tmp_path, files), None)


@attrs.define
class Fake:
    type: str
    verdict: str = PASSED
    raises: bool = False
    seen: list[str] = attrs.field(factory=list)

    def run(self, cases: Sequence[TestCase]) -> dict[str, RunnerReport]:
        self.seen += [c.name for c in cases]
        if self.raises:
            raise StreamtError(Codes.E406_CONNECTION_REFUSED, "down", "start it")
        return {
            c.name: RunnerReport(
                assertions=tuple(
                    AssertionResult(a.index, a.kind, a.label, self.verdict, 3, 1 if self.verdict == FAILED else 0)
                    for a in c.assertions
                ),
                messages=3,
            )
            for c in cases
            if c.name != "s1" or self.verdict != "forget"
        }


def test_order_is_schema_sample_continuous_in_declaration_order(project: Any) -> None:
    assert [t.name for t in select_tests(project, None, None)] == ["k1", "s1", "s2", "c1"]
    assert [t.name for t in select_tests(project, "orders", "sample")] == ["s1", "s2"]


def test_runners_only_see_the_kinds_their_type_evaluates(project: Any) -> None:
    sample = Fake("sample")
    results = run_tests(project, select_tests(project, None, "sample"), {"sample": sample})
    s2 = next(r for r in results if r.name == "s2")
    assert [(a.kind, a.status) for a in s2.assertions] == [("range", PASSED), ("max_lag", "skipped")]
    assert sample.seen == ["s1", "s2"]


def test_a_failure_with_severity_warning_is_a_warning_and_does_not_block(project: Any) -> None:
    results = run_tests(project, select_tests(project, None, "sample"), {"sample": Fake("sample", FAILED)})
    statuses = {r.name: (r.status, r.blocks) for r in results}
    assert statuses == {"s1": ("failed", True), "s2": ("warning", False)}


def test_a_runner_failure_is_an_error_per_test_and_a_missing_runner_names_the_extra(project: Any) -> None:
    results = run_tests(project, select_tests(project, None, None), {"sample": Fake("sample", raises=True)})
    by_name = {r.name: r for r in results}
    assert by_name["s1"].status == "error" and by_name["s1"].error.code.code == "E406_CONNECTION_REFUSED"
    assert by_name["k1"].error.code.code == "E903_PLUGIN_REQUIRED"
    assert "streamt[kafka]" in (by_name["k1"].error.suggestion or "")
    assert "streamt[flink]" in (by_name["c1"].error.suggestion or "")


def test_two_plugins_claiming_a_type_run_neither(project: Any) -> None:
    table = runners_by_type([("a", [Fake("sample")]), ("b", [Fake("sample")]), ("c", [Fake("schema")])])
    assert table["sample"] == ["a", "b"] and isinstance(table["schema"], Fake)
    results = run_tests(project, select_tests(project, None, "sample"), table)
    assert {r.error.code.code for r in results if r.error} == {"E903_PLUGIN_REQUIRED"}
    assert "a, b" in results[0].error.message


def test_a_case_the_runner_does_not_answer_is_an_error_never_a_pass(project: Any) -> None:
    results = run_tests(project, select_tests(project, None, "sample"), {"sample": Fake("sample", "forget")})
    s1 = next(r for r in results if r.name == "s1")
    assert s1.status == "error" and s1.error.code.code == "E999_INTERNAL_ERROR"


def test_text_is_the_same_bytes_for_the_same_results(project: Any) -> None:
    runners = {"sample": Fake("sample", FAILED), "schema": Fake("schema"), "continuous": Fake("continuous")}
    first = render_text(
        run_tests(project, select_tests(project, None, None), runners, clock=iter([0.0, 5.0] * 9).__next__)
    )
    second = render_text(run_tests(project, select_tests(project, None, None), runners))
    assert first == second
    assert first.splitlines()[-1] == "Results: 2 passed, 1 failed, 0 deployed, 1 warning"


def test_sensitive_and_masked_columns_are_known_to_runners(tmp_path: Path) -> None:
    from streamt.testrun.targets import target_of

    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
            "sources": [
                {"name": "raw", "topic": "raw", "columns": [{"name": "ssn", "classification": "highly_sensitive"}]}
            ],
            "models": [
                {
                    "name": "m",
                    "key": "email",
                    "sql": "SELECT * FROM {{ source('raw') }}",
                    "columns": [{"name": "email"}, {"name": "phone"}, {"name": "tier", "classification": "internal"}],
                    "security": {
                        "classification": {"email": "sensitive"},
                        "policies": [{"mask": {"column": "phone", "method": "hash"}}],
                    },
                }
            ],
        }
    }
    project = load_project(write_project(tmp_path, files), None)
    model = target_of(project, "m")
    assert model is not None and model.sensitive == frozenset({"email", "phone"}) and model.key_column == "email"
    source = target_of(project, "raw")
    assert source is not None and source.sensitive == frozenset({"ssn"}) and source.subject is None
    assert target_of(project, "nope") is None
