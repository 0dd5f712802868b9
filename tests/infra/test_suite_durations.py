"""The suite-durations plugin (``--suite-durations FILE``) on a tiny synthetic suite, in a real pytest process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import streamt_test_durations as durations

INFRA = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("nodeid", "folder"),
    [
        ("tests/e2e/test_x.py::test_a", "tests/e2e"),
        ("tests/e2e/test_x.py::test_a@flink-connect", "tests/e2e"),
        ("tests/infra/gateway_stub/test_api.py::test_a", "tests/infra"),
        ("streamt-core/tests/dsl/test_init_cli.py::test_a[json]", "streamt-core/tests"),
        (
            "streamt-exporters/streamt-exporter-odcs/tests/test_docs_odcs.py::T::test_a",
            "streamt-exporters/streamt-exporter-odcs/tests",
        ),
        ("test_top.py::test_a", "."),
    ],
)
def test_each_test_counts_for_its_area_folder(nodeid: str, folder: str) -> None:
    assert durations.folder_of(nodeid) == folder


def test_the_summary_ranks_tests_and_folders_by_time_ties_by_name() -> None:
    lines = durations.summary(
        {"tests/e2e/test_a.py::t1": 2.0, "tests/e2e/test_a.py::t2": 3.0, "d/tests/test_b.py::t": 2.0},
        wall_seconds=4.3,
        workers=2,
        slowest=2,
    )
    assert lines == [
        "3 tests, 7.0 s of test time, 4.3 s wall (2 workers)",
        "slowest 2 tests:",
        "      3.00 s  tests/e2e/test_a.py::t2",
        "      2.00 s  d/tests/test_b.py::t",
        "time per folder:",
        "       5.0 s      2 tests  tests/e2e",
        "       2.0 s      1 tests  d/tests",
    ]


def _synthetic_suite(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text('pytest_plugins = ["streamt_test_durations"]\n')  # as the root conftest does
    (root / "tests" / "e2e").mkdir(parents=True)
    (root / "tests" / "e2e" / "test_slow.py").write_text(
        "import time\n\n\ndef test_slow():\n    time.sleep(0.3)\n\n\ndef test_quick():\n    pass\n"
    )
    (root / "pkg" / "tests").mkdir(parents=True)
    (root / "pkg" / "tests" / "test_fails.py").write_text("def test_fails():\n    assert False\n")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            *args,
        ],
        cwd=root,
        env={"PYTHONPATH": str(INFRA), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_run_prints_and_writes_its_durations_also_after_a_failure(tmp_path: Path, workers: list[str]) -> None:
    suite = tmp_path / "suite"
    _synthetic_suite(suite)
    target = tmp_path / "stack" / "test-durations.txt"  # outside the suite, as STREAMT_STACK_DIR may be
    # A second run finds the file there (as ./dev passes it: one token); once is enough under xdist.
    for _ in range(1 if workers else 2):
        done = _run(suite, *workers, f"--suite-durations={target}")
        assert done.returncode == 1, done.stdout + done.stderr  # the failing test fails the run, the report stays
    written = target.read_text()
    lines = written.splitlines()
    assert lines[0].startswith("3 tests, ") and lines[0].endswith(
        f"({2 if workers else 1} worker{'s' if workers else ''})"
    )
    assert lines[1] == "slowest 3 tests:" and lines[2].endswith("tests/e2e/test_slow.py::test_slow")
    assert float(lines[2].split()[0]) >= 0.3
    folders = [line.split()[-1] for line in lines[lines.index("time per folder:") + 1 :]]
    assert folders == ["tests/e2e", "pkg/tests"]
    # The same text ends the terminal output, once (an xdist worker never reports on its own).
    assert done.stdout.count("suite durations") == 1 and written.strip() in done.stdout
    assert list(target.parent.iterdir()) == [target]  # no temporary file left beside it


def test_without_the_option_nothing_is_printed_or_written(tmp_path: Path) -> None:
    _synthetic_suite(tmp_path)
    done = _run(tmp_path)
    assert "suite durations" not in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conftest.py", "pkg", "pytest.ini", "tests"]
