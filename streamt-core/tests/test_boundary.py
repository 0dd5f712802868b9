"""The test-only boundary hooks: inert unless set, a delay at every boundary or only at the N-th."""

from __future__ import annotations

import pytest
from streamt import boundary


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    monkeypatch.setattr(boundary, "_reached", 0)
    names = ("KILL_AT_BOUNDARY", "BOUNDARY_DELAY", "DELAY_AT_BOUNDARY", "BOUNDARY_REPORT")
    for name in (f"STREAMT_TEST_{n}" for n in names):
        monkeypatch.delenv(name, raising=False)
    return slept


def _reach(times: int) -> None:
    for _ in range(times):
        boundary.boundary()


def test_nothing_happens_without_the_variables(sleeps: list[float]) -> None:
    _reach(3)
    assert sleeps == [] and boundary._reached == 0


def test_the_delay_applies_at_every_boundary(sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMT_TEST_BOUNDARY_DELAY", "0.25")
    _reach(3)
    assert sleeps == [0.25, 0.25, 0.25]


def test_the_delay_applies_only_at_the_named_boundary(sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMT_TEST_BOUNDARY_DELAY", "2")
    monkeypatch.setenv("STREAMT_TEST_DELAY_AT_BOUNDARY", "2")
    _reach(4)
    assert sleeps == [2.0] and boundary._reached == 4


def test_each_boundary_reached_is_reported_before_its_delay(
    sleeps: list[float], monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    report = tmp_path / "reached"
    monkeypatch.setenv("STREAMT_TEST_BOUNDARY_REPORT", str(report))
    monkeypatch.setenv("STREAMT_TEST_BOUNDARY_DELAY", "1")
    monkeypatch.setenv("STREAMT_TEST_DELAY_AT_BOUNDARY", "2")
    monkeypatch.setattr("time.sleep", lambda seconds: sleeps.append(report.read_text()))
    _reach(3)
    assert report.read_text() == "1\n2\n3\n" and sleeps == ["1\n2\n"]  # boundary 2 was on record while it slept
