"""``collector_paused`` turns the cyclic collector off for its block and restores what it found."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from streamt.collector import collector_paused
from streamt_testing import run_cli, write_project


def test_paused_inside_and_restored_after_an_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_nested_pauses_leave_it_off_until_the_outer_one_ends() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_validate_loads_and_checks_with_the_collector_paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import streamt.project
    import streamt.validation

    seen: list[tuple[str, bool]] = []
    load, check = streamt.project.load_project, streamt.validation.validate_project

    def recording_load(*args: Any, **kwargs: Any) -> Any:
        seen.append(("load", gc.isenabled()))
        return load(*args, **kwargs)

    def recording_check(*args: Any, **kwargs: Any) -> Any:
        seen.append(("check", gc.isenabled()))
        return check(*args, **kwargs)

    monkeypatch.setattr(streamt.project, "load_project", recording_load)
    monkeypatch.setattr(streamt.validation, "validate_project", recording_check)
    root = write_project(
        tmp_path / "p",
        {"stream_project.yml": "project: {name: p}\nruntime:\n  kafka: {bootstrap_servers: 'localhost:9092'}\n"},
    )
    outcome = run_cli("validate", "--project-dir", root)
    assert outcome.exit_code == 0, outcome.text
    assert seen == [("load", False), ("check", False)]
    assert gc.isenabled()
