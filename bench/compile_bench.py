"""Benchmark: ``streamt compile`` wall time and peak memory on synthetic 100 / 1,000 / 5,000-model projects.

Reuses the validate benchmark's generator (chains and fan-outs, Jinja refs, split files; every model a
Flink job with its topic). Each run is a fresh process writing a real output directory, best of three;
peak memory is that child's max RSS (``wait4``). After the timed runs the output of two runs is compared
byte for byte. Usage: ``./dev bench compile_bench [sizes...]``; ``--stages`` adds an in-process
breakdown (load, validate, provider hooks, render, write) to show where the time goes; ``--profile``
runs that breakdown under cProfile and prints the 30 most expensive functions (cumulative time).
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validate_bench import generate  # the shared synthetic-project generator


def run_once(root: Path, out: Path) -> tuple[float, float]:
    streamt = Path(sys.executable).with_name("streamt")
    argv = [str(streamt), "-o", "json", "compile", "--project-dir", str(root), "--output-dir", str(out)]
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    stdout = child.stdout.read()
    # Reap the child ourselves: wait4 returns its own resource usage (max RSS), not the sum of all children.
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = status
    elapsed = time.perf_counter() - started
    if status:
        raise SystemExit(f"compile failed: {stdout[:500]!r}")
    return elapsed, usage.ru_maxrss / 1024


def tree_digest(out: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(out)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def stages(root: Path, out: Path) -> str:
    """Seconds per pipeline stage, in this process (imports and plugin loading excluded)."""
    from streamt.compile import compile_project, render, write_output
    from streamt.plugins import get_plugins
    from streamt.project.loader import load_project
    from streamt.validation import validate_project

    get_plugins()
    marks = [time.perf_counter()]
    project = load_project(root)
    marks.append(time.perf_counter())
    validate_project(project)
    marks.append(time.perf_counter())
    compiled = compile_project(project)
    marks.append(time.perf_counter())
    files, _ = render(compiled)
    marks.append(time.perf_counter())
    write_output(out, files)
    marks.append(time.perf_counter())
    names = ("load", "validate", "compile hooks", "render", "write")
    return ", ".join(f"{name} {b - a:.2f}" for name, a, b in zip(names, marks, marks[1:], strict=False))


def profiled(root: Path, out: Path) -> str:
    """``stages`` under cProfile: the stage line, then the top functions by cumulative time."""
    import cProfile
    import io
    import pstats

    profile = cProfile.Profile()
    line = profile.runcall(stages, root, out)
    report = io.StringIO()
    pstats.Stats(profile, stream=report).sort_stats("cumulative").print_stats(30)
    return f"{line} (under cProfile)\n{report.getvalue()}"


def main(sizes: list[int], with_stages: bool, with_profile: bool) -> None:
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"{'models':>7} {'files':>7} {'wall s':>8} {'peak MB':>8} {'ms/model':>9} {'identical':>9}")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"
            generate(root, size)
            runs = [run_once(root, Path(tmp) / f"out{i}") for i in range(3)]
            best = min(wall for wall, _ in runs)
            peak = max(mb for _, mb in runs)
            identical = tree_digest(Path(tmp) / "out0") == tree_digest(Path(tmp) / "out2")
            files = sum(1 for p in (Path(tmp) / "out0").rglob("*") if p.is_file())
            print(f"{size:>7} {files:>7} {best:>8.2f} {peak:>8.1f} {1000 * best / size:>9.2f} {identical!s:>9}")
            if with_stages:
                print(f"        stages (s): {stages(root, Path(tmp) / 'staged')}")
            if with_profile:
                print(f"        stages (s): {profiled(root, Path(tmp) / 'profiled')}")


if __name__ == "__main__":
    args = sys.argv[1:]
    sizes = [int(a) for a in args if not a.startswith("--")]
    main(sizes or [100, 1000, 5000], "--stages" in args, "--profile" in args)
