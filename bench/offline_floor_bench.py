"""Benchmark: ``streamt plan --offline`` against its floor, the YAML parse of the same files (issue 34).

The floor is what no offline plan can go below: a fresh process of the same interpreter that imports PyYAML and
parses exactly the project's YAML files with libyaml (``yaml.load(..., Loader=CSafeLoader)``). Each round runs the
floor, then every streamt column, each in a fresh process (interleaved, so a shared machine's load hits them alike);
per run the child's user + system CPU, wall time and max RSS (``wait4``). The table gives medians and, per column,
the median of the per-round ratios ``CPU / floor CPU`` (paired: the floor of the same round).

Memory rows: the peak RSS at each size and the growth per 1,000 models between consecutive sizes (issue 34's goal:
at most 7 MiB per 1,000 models, and at most the early peer's peak — 82.9 MiB at 5,000 models on the issue's
machine).

Synthetic projects are ``validate_bench.generate``'s (chains and fan-outs, Jinja refs, every model a Flink job
with its topic, 50 models per file). The parse cache is off (``STREAMT_NO_CACHE=1``, every file parsed, as the
floor does); ``--cache warm`` runs with a cache directory filled by the untimed first run instead. Each column runs
once untimed before the rounds (bytecode written, files in the page cache).

Usage: ``./dev bench offline_floor_bench [--rounds N] [--base [NAME=]PATH]... [--cache off|warm]
[--commands "plan --offline,compile --dry-run,compile"] [sizes...]`` (default: 5 rounds, ``plan --offline``,
sizes 1000 5000 10000). ``--base`` names another ``streamt`` executable (e.g. a worktree of an earlier commit with
its own venv) measured in the same rounds.
"""

from __future__ import annotations

import itertools
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_bench import run_once  # one fresh process: wall, CPU (user + system), max RSS in MiB
from validate_bench import generate  # the shared synthetic-project generator

FLOOR = "floor"
# Parse every named file as the floor: same interpreter, fresh process, libyaml's C loader.
_PARSE = (
    "import sys, yaml\n"
    "for name in sys.argv[1:]:\n"
    "    with open(name, 'rb') as f:\n"
    "        yaml.load(f, Loader=yaml.CSafeLoader)\n"
)

COMMANDS = {
    "plan --offline": ["plan", "--offline"],
    "compile --dry-run": ["compile", "--dry-run"],
    "compile": ["compile"],
}


def yaml_files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.suffix in (".yml", ".yaml") and p.is_file())


def streamt_argv(exe: str, command: str, root: Path, out: Path) -> list[str]:
    argv = [exe, "-o", "json", *COMMANDS[command], "--project-dir", str(root)]
    return [*argv, "--output-dir", str(out)] if command == "compile" else argv


def streamt_env(cache: str, cache_dir: Path) -> dict[str, str]:
    # Bytecode written and used, as an installed streamt has it (a session may set PYTHONDONTWRITEBYTECODE).
    dropped = ("STREAMT_NO_CACHE", "STREAMT_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    if cache == "off":
        env["STREAMT_NO_CACHE"] = "1"
    env["STREAMT_CACHE_DIR"] = str(cache_dir)  # never ~/.cache
    return env


def main(sizes: list[int], rounds: int, columns: dict[str, str], cache: str, commands: list[str]) -> None:
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"columns: {FLOOR}, {', '.join(columns)}; cache {cache}; medians of {rounds} interleaved rounds")
    width = max(len(FLOOR), *map(len, columns))
    print(
        f"{'models':>7} {'command':<18} {'column':<{width}} {'wall s':>7} {'cpu s':>7} {'peak MiB':>8}"
        f" {'cpu/floor':>9} {'load avg':>11}"
    )
    peaks: dict[tuple[str, str], list[tuple[int, float]]] = {}
    scratch = Path(tempfile.mkdtemp(prefix="offline-floor-bench-"))
    try:
        for size in sizes:
            root = scratch / f"project-{size}"
            generate(root, size)
            floor_argv = [sys.executable, "-c", _PARSE, *yaml_files(root)]
            for command in commands:
                env = {name: streamt_env(cache, scratch / f"cache-{name}") for name in columns}
                # One untimed run each: bytecode compiled, files in the page cache, a warm cache filled.
                run_once(floor_argv, dict(os.environ))
                for name, exe in columns.items():
                    run_once(streamt_argv(exe, command, root, scratch / "warm-up"), env[name])
                    shutil.rmtree(scratch / "warm-up", ignore_errors=True)
                runs: dict[str, list[tuple[float, float, float]]] = {FLOOR: [], **{name: [] for name in columns}}
                load_before = os.getloadavg()[0]
                for round_ in range(rounds):
                    runs[FLOOR].append(run_once(floor_argv, dict(os.environ)))
                    for name, exe in columns.items():
                        out = scratch / f"out-{name}-{size}-{round_}"
                        runs[name].append(run_once(streamt_argv(exe, command, root, out), env[name]))
                        shutil.rmtree(out, ignore_errors=True)
                load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
                for name, results in runs.items():
                    wall, cpu, peak = (statistics.median(r[i] for r in results) for i in range(3))
                    paired = statistics.median(r[1] / f[1] for r, f in zip(results, runs[FLOOR], strict=True))
                    print(
                        f"{size:>7} {command:<18} {name:<{width}} {wall:>7.2f} {cpu:>7.2f} {peak:>8.1f}"
                        f" {paired:>8.2f}x {load:>11}"
                    )
                    if name != FLOOR:
                        peaks.setdefault((command, name), []).append((size, peak))
                sys.stdout.flush()
            shutil.rmtree(root, ignore_errors=True)
        if len(sizes) > 1:
            print("peak memory growth, MiB per 1,000 models (between consecutive sizes):")
            for (command, name), points in peaks.items():
                slopes = ", ".join(
                    f"{a}-{b}: {1000 * (pb - pa) / (b - a):.1f}" for (a, pa), (b, pb) in itertools.pairwise(points)
                )
                print(f"  {command:<18} {name:<{width}} {slopes}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds, cache, sizes = 5, "off", []
    columns = {"ours": str(Path(sys.executable).with_name("streamt"))}
    commands = ["plan --offline"]
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--base":
            name, _, path = args.pop(0).rpartition("=")
            columns[name or f"base{len(columns)}"] = path
        elif arg == "--cache":
            cache = args.pop(0)
            if cache not in ("off", "warm"):
                raise SystemExit("--cache takes off or warm")
        elif arg == "--commands":
            commands = args.pop(0).split(",")
            if set(commands) - set(COMMANDS):
                raise SystemExit(f"--commands takes some of: {', '.join(COMMANDS)}")
        else:
            sizes.append(int(arg))
    main(sizes or [1000, 5000, 10000], rounds, columns, cache, commands)
