"""Benchmark: how ``validate``, ``compile``, ``compile --dry-run`` and ``plan --offline`` grow, 100 to 10,000 models.

Same synthetic projects as ``validate_bench`` / ``compile_bench`` (chains and fan-outs, Jinja refs, every model a
Flink job with its topic). Each command runs in a fresh process; runs of every column are interleaved round by round,
so a shared machine's load hits all columns alike — compare the ratios, not the absolute seconds. Per run: wall time,
user+system CPU and max RSS of that child (``wait4``); the table gives medians.

``compile (again)`` compiles into the output directory of an earlier compile (the usual second run: the
previous manifest is read to check streamt wrote it, and the previous tree is deleted after the swap).

Columns: ``ours`` (this checkout's ``streamt``), one per ``--cache`` mode of the YAML parse cache: ``off``
(``STREAMT_NO_CACHE=1``, the default: every file parsed, as before the cache), ``cold`` (an empty cache directory for
every run, so the run parses and writes every entry) and ``warm`` (a directory filled by one run before the first
round); ``base`` when ``--base [NAME=]PATH`` names another ``streamt`` executable (e.g. a ``git worktree`` of an
earlier commit with its own venv; repeat it for several); ``peer`` when ``STREAMT_PEER`` names the early public
streamt's executable (its compile takes ``-o``, and it has no offline plan: that row is skipped for it). Every run's
cache directory is inside the benchmark's temporary directory, never ``~/.cache``.

Usage: ``./dev bench scale_bench [--rounds N] [--cache off,cold,warm] [--base [NAME=]PATH]...
[--commands "validate,plan --offline"] [sizes...]`` (default: every command; sizes 100 1000 5000 10000).
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validate_bench import generate  # the shared synthetic-project generator

Argv = Callable[[Path, Path], list[str] | None]


def ours_argv(exe: str) -> dict[str, Argv]:
    return {
        "validate": lambda root, out: [exe, "-o", "json", "validate", "--project-dir", str(root)],
        "compile": lambda root, out: [
            exe,
            "-o",
            "json",
            "compile",
            "--project-dir",
            str(root),
            "--output-dir",
            f"{out}",
        ],
        # Into the output directory of an earlier compile (every column shares one, filled before the rounds).
        AGAIN: lambda root, out: [exe, "-o", "json", "compile", "--project-dir", str(root), "--output-dir", again(out)],
        "compile --dry-run": lambda root, out: [exe, "-o", "json", "compile", "--dry-run", "--project-dir", str(root)],
        "plan --offline": lambda root, out: [exe, "-o", "json", "plan", "--offline", "--project-dir", str(root)],
    }


AGAIN = "compile (again)"


def again(out: Path) -> str:
    return str(out.parent / "out-again")


def peer_argv(exe: str) -> dict[str, Argv]:
    # The early streamt runs from inside the project and names the output directory with -o.
    return {
        "validate": lambda root, out: [exe, "validate", "--project-dir", str(root)],
        "compile": lambda root, out: [exe, "compile", "--project-dir", str(root), "-o", str(out)],
        AGAIN: lambda root, out: [exe, "compile", "--project-dir", str(root), "-o", again(out)],
        "compile --dry-run": lambda root, out: [exe, "compile", "--dry-run", "--project-dir", str(root)],
        "plan --offline": lambda root, out: None,
    }


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and max RSS in MB of one fresh process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    if status:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


class Column:
    """One executable in one parse-cache mode; ``env`` gives the environment of its next run."""

    def __init__(self, argvs: dict[str, Argv], cache: str, scratch: Path) -> None:
        self.argvs, self.cache, self.scratch = argvs, cache, scratch
        self.runs = 0

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("STREAMT_NO_CACHE", "STREAMT_CACHE_DIR")}
        self.runs += 1
        if self.cache == "off":
            env["STREAMT_NO_CACHE"] = "1"
        # cold: a new, empty directory every run; warm (and base trees, whatever they do): one directory.
        directory = f"cold-{self.runs}" if self.cache == "cold" else "kept"
        env["STREAMT_CACHE_DIR"] = str(self.scratch / directory)
        return env


def main(sizes: list[int], rounds: int, bases: dict[str, str], caches: list[str], commands: list[str]) -> None:
    exe = str(Path(sys.executable).with_name("streamt"))
    scratch = Path(tempfile.mkdtemp(prefix="scale-bench-cache-"))
    columns = {
        ("ours" if caches == ["off"] else f"ours-{mode}"): Column(ours_argv(exe), mode, scratch / f"ours-{mode}")
        for mode in caches
    }
    for name, path in bases.items():
        columns[name] = Column(ours_argv(path), "base", scratch / name)
    if os.environ.get("STREAMT_PEER"):
        columns["peer"] = Column(peer_argv(os.environ["STREAMT_PEER"]), "base", scratch / "peer")
    width = max(6, *map(len, columns))
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"columns: {', '.join(columns)}; medians of {rounds} interleaved rounds")
    head = f"{'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'load avg':>16}"
    print(f"{'models':>7} {'command':<18} {'column':<{width}} {head}")
    try:
        for size in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / "project"
                generate(root, size)
                for command in commands:
                    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in columns}
                    for position, (name, column) in enumerate(columns.items()):  # fill the warm caches first
                        argv = column.argvs[command](root, Path(tmp) / f"out-{name}-warm-up")
                        if argv is not None and (column.cache == "warm" or (command == AGAIN and not position)):
                            run_once(argv, column.env())  # and write the output directory compiled again
                    load_before = os.getloadavg()[0]
                    for round_ in range(rounds):
                        for name, column in columns.items():
                            argv = column.argvs[command](root, Path(tmp) / f"out-{name}-{round_}")
                            if argv is not None:
                                results[name].append(run_once(argv, column.env()))
                    load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
                    for name, runs in results.items():
                        if not runs:
                            continue
                        wall, cpu, peak = (statistics.median(r[i] for r in runs) for i in range(3))
                        print(
                            f"{size:>7} {command:<18} {name:<{width}} {wall:>8.2f} {cpu:>8.2f} {peak:>8.1f} {load:>16}"
                        )
                    sys.stdout.flush()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds, bases, caches, sizes = 3, {}, ["off"], []
    commands = list(ours_argv("streamt"))
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--base":
            name, _, path = args.pop(0).rpartition("=")
            bases[name or ("base" if "base" not in bases else f"base{len(bases) + 1}")] = path
        elif arg == "--cache":
            caches = args.pop(0).split(",")
            if not caches or set(caches) - {"off", "cold", "warm"}:
                raise SystemExit("--cache takes off, cold and/or warm, comma-separated")
        elif arg == "--commands":
            commands = args.pop(0).split(",")
            if set(commands) - set(ours_argv("streamt")):
                raise SystemExit(f"--commands takes some of: {', '.join(ours_argv('streamt'))}")
        else:
            sizes.append(int(arg))
    main(sizes or [100, 1000, 5000, 10000], rounds, bases, caches, commands)
