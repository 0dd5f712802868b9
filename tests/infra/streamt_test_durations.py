"""pytest plugin: what the suite's time is spent on, printed at the end and written to a file.

``--suite-durations FILE`` (``./dev test`` passes ``$STREAMT_STACK_DIR/test-durations.txt``, by default
``.stack/test-durations.txt``) adds a "suite durations" section to the terminal summary and writes the
same text to FILE: the wall time of the run, the slowest tests (setup + call + teardown of each) and the
time per folder (``tests/e2e``, ``tests/fuzz``, ``streamt-core/tests``, each exporter's ``tests``...).
Without the option nothing is printed or written, so a targeted run never overwrites a full run's record.

Under pytest-xdist the controller receives every worker's reports and writes the one file; the
workers only run tests.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

SLOWEST = 30


def folder_of(nodeid: str) -> str:
    """The folder a test's time is reported under: ``tests/<area>`` at the root, else ``<distribution>/tests``."""
    parts = nodeid.split("::", 1)[0].split("/")[:-1]
    if not parts:
        return "."
    if parts[0] == "tests":
        return "/".join(parts[:2])
    if "tests" in parts:
        return "/".join(parts[: parts.index("tests") + 1])
    return "/".join(parts)


def summary(durations: dict[str, float], wall_seconds: float, workers: int, slowest: int = SLOWEST) -> list[str]:
    """The report's lines: deterministic for the same durations (ties broken by name)."""
    per_folder: dict[str, list[float]] = defaultdict(list)
    for nodeid, seconds in durations.items():
        per_folder[folder_of(nodeid)].append(seconds)
    total = sum(durations.values())
    lines = [
        f"{len(durations)} tests, {total:.1f} s of test time, {wall_seconds:.1f} s wall"
        f" ({workers} worker{'s' if workers != 1 else ''})",
        f"slowest {min(slowest, len(durations))} tests:",
    ]
    ranked = sorted(durations.items(), key=lambda item: (-item[1], item[0]))[:slowest]
    lines += [f"  {seconds:8.2f} s  {nodeid}" for nodeid, seconds in ranked]
    lines.append("time per folder:")
    folders = sorted(per_folder.items(), key=lambda item: (-sum(item[1]), item[0]))
    lines += [f"  {sum(times):8.1f} s  {len(times):5d} tests  {folder}" for folder, times in folders]
    return lines


class SuiteDurations:
    def __init__(self, target: Path, workers: int) -> None:
        self.target = target
        self.workers = workers
        self.durations: dict[str, float] = defaultdict(float)
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.durations[report.nodeid] += report.duration

    def pytest_terminal_summary(self, terminalreporter) -> None:
        lines = summary(dict(self.durations), time.monotonic() - self.started, self.workers)
        terminalreporter.write_sep("=", "suite durations")
        for line in lines:
            terminalreporter.write_line(line)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.target.with_name(f".{self.target.name}.{os.getpid()}.tmp")
        temporary.write_text("\n".join(lines) + "\n")
        os.replace(temporary, self.target)  # a reader never sees half a report
        terminalreporter.write_line(f"(written to {self.target})")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--suite-durations",
        metavar="FILE",
        default=None,
        help="print the slowest tests and the time per folder at the end, and write them to FILE",
    )


def pytest_configure(config: pytest.Config) -> None:
    target = config.getoption("--suite-durations")
    if not target or hasattr(config, "workerinput"):  # an xdist worker: its controller reports
        return
    workers = config.getoption("numprocesses", None) if config.pluginmanager.has_plugin("xdist") else None
    count = workers if isinstance(workers, int) and workers > 0 else 1  # -n 0 or no xdist: this process
    config.pluginmanager.register(SuiteDurations(Path(target), count), "streamt-suite-durations")
