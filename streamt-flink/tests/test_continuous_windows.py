"""Windowed continuous-test assertions compile to append-only window-TVF SQL on a processing-time column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamt.project.loader import load_project
from streamt_flink.continuous import compile_test
from streamt_flink.continuous_windows import window_seconds


def _project(streamt_project: Callable[..., Path], assertions: list[dict]) -> object:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092"}, "flink": {"clusters": {"c": {}}}},
                "sources": [{"name": "s", "topic": "t", "columns": [{"name": "a", "type": "BIGINT"}]}],
                "tests": [{"name": "w", "model": "s", "type": "continuous", "assertions": assertions}],
            }
        }
    )
    return load_project(root, process_env={})


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, 60),
        (10, 10),
        ("10 seconds", 10),
        ("5m", 300),
        ("1 hour", 3600),
        ("2 days", 172800),
        ("soon", None),
        (0, None),
    ],
)
def test_window_durations(value: object, seconds: int | None) -> None:
    assert window_seconds(value) == seconds


def test_unique_key_throughput_and_distribution_compile_to_windows(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {"unique_key": {"key": "a", "window": "10 seconds", "tolerance": 1}},
            {"throughput": {"min_per_second": 1, "max_per_second": 50}},
            {
                "distribution": {
                    "column": "a",
                    "window": 30,
                    "buckets": [{"min": 0, "max": 10, "expected_ratio": 0.5, "tolerance": 0.1}],
                }
            },
        ],
    )
    artifact = compile_test(project, project.test("w"))  # type: ignore[attr-defined]
    assert artifact is not None and artifact.spec["skipped"] == []
    sql = artifact.files[".sql"]
    assert "`_streamt_proc` AS PROCTIME()" in sql
    assert "TUMBLE(TABLE `_streamt_windowed`, DESCRIPTOR(`_streamt_proc`), INTERVAL '10' SECOND)" in sql
    assert "GROUP BY `window_start`, `window_end`, `a`\nHAVING COUNT(*) > 2" in sql
    assert "HAVING CAST(COUNT(*) AS DOUBLE) / 60 < 1.0 OR CAST(COUNT(*) AS DOUBLE) / 60 > 50.0" in sql
    assert "< 0.4 OR" in sql and "> 0.6" in sql


def test_a_bad_window_is_skipped_not_guessed(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project, [{"unique_key": {"key": "a", "window": "soon"}}, {"not_null": {"columns": ["a"]}}]
    )
    artifact = compile_test(project, project.test("w"))  # type: ignore[attr-defined]
    assert artifact is not None and artifact.spec["skipped"] == ["unique_key"]
    assert "PROCTIME" not in artifact.files[".sql"]


def test_foreign_key_is_a_processing_time_left_interval_join(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {"foreign_key": {"column": "a", "ref_model": "s", "ref_key": "a", "window": "10 seconds"}},
            {"foreign_key": {"column": "a", "ref_model": "s", "ref_key": "a", "match_rate": 0.9}},
            {"foreign_key": {"column": "a", "ref_model": "nope", "ref_key": "a"}},
        ],
    )
    artifact = compile_test(project, project.test("w"))  # type: ignore[attr-defined]
    assert artifact is not None and artifact.spec["skipped"] == ["foreign_key"]  # match_rate and unknown ref
    sql = artifact.files[".sql"]
    assert "CREATE TABLE IF NOT EXISTS `_streamt_ref_0`" in sql
    assert "LEFT JOIN `_streamt_ref_0` AS r" in sql
    window = "l.`_streamt_proc` - INTERVAL '10' SECOND AND l.`_streamt_proc` + INTERVAL '10' SECOND"
    assert f"r.`_streamt_proc` BETWEEN {window}" in sql
