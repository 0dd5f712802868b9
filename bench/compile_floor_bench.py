"""Benchmark: ``streamt compile`` into a fresh directory against the parse-and-write floor (issue 34).

The floor is what no compile of the same project can avoid: a fresh Python process that parses the
project's YAML files with PyYAML's C loader (``CSafeLoader``), creates the same output directories,
writes the same files with the same bytes (the tree a previous compile wrote, read back before the
timing) and makes them durable with one ``syncfs``. Its CPU and wall are the whole child's (``wait4``:
interpreter start-up and ``import yaml`` included, as compile pays them too) minus what it spent reading
the recorded tree, which it reports itself (its peak RSS includes that tree: not a bar for compile's).

Columns, interleaved round by round in one run so a shared machine's load hits both alike: ``floor`` and
``compile`` (``streamt -o json compile --output-dir NEW``, a fresh directory every run, the parse cache off
with ``STREAMT_NO_CACHE=1``: every file parsed, as by the floor). Per column: medians of wall, CPU
(user+sys) and peak RSS; then compile / floor. Every compile's tree is checked against the recorded one
(same paths, same bytes). ``--base PATH`` adds a column for another ``streamt`` executable (an earlier
commit's ``git worktree`` and venv), in the same rounds: before and after in one run.

Usage: ``./dev bench compile_floor_bench [--rounds N] [--dir PARENT] [--base PATH] [sizes...]`` (default 1000 5000).
``--dir`` puts the project and every output tree under PARENT, e.g. a tmpfs such as ``/dev/shm`` to leave
the disk out: on a shared machine's ext4 one file creation has cost 0.7 ms of system CPU, ~12 us on tmpfs.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validate_bench import generate  # the shared synthetic-project generator

# The floor, run as ``python -c FLOOR PROJECT RECORDED OUT``. RECORDED is one file: a line per output file
# (``<size> <path>``), a blank line, then every file's bytes in that order.
FLOOR = r"""
import os, sys, time, ctypes
started_cpu, started_wall = time.process_time(), time.perf_counter()
project, recorded, out = sys.argv[1:4]
with open(recorded, "rb") as handle:
    blob = handle.read()
index, _, body = blob.partition(b"\n\n")
files, offset = [], 0
for line in index.decode().splitlines():
    size, path = line.split(" ", 1)
    files.append((path, body[offset : offset + int(size)]))
    offset += int(size)
loaded_cpu, loaded_wall = time.process_time() - started_cpu, time.perf_counter() - started_wall
import yaml
for directory, _dirs, names in os.walk(project):
    for name in sorted(names):
        if name.endswith((".yml", ".yaml")):
            with open(os.path.join(directory, name), "rb") as handle:
                yaml.load(handle, Loader=yaml.CSafeLoader)
os.mkdir(out)
for directory in sorted({os.path.dirname(path) for path, _ in files} - {""}):
    os.makedirs(os.path.join(out, directory), exist_ok=True)
flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
for path, data in files:
    fd = os.open(os.path.join(out, path), flags, 0o666)
    os.write(fd, data)
    os.close(fd)
fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
assert ctypes.CDLL(None, use_errno=True).syncfs(fd) == 0
os.close(fd)
print(loaded_cpu, loaded_wall)
"""


# Children keep bytecode caches, as an installation does (with PYTHONDONTWRITEBYTECODE, as on the shared
# machine, every run of an editable checkout compiled ~200 modules again, ~0.35 s CPU); each column has one
# unmeasured warm-up run.
_DROPPED = ("STREAMT_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
ENV = {**{k: v for k, v in os.environ.items() if k not in _DROPPED}, "STREAMT_NO_CACHE": "1"}


def run_once(argv: list[str]) -> tuple[float, float, float, bytes]:
    """Wall seconds, CPU seconds (user + system), max RSS in MB and stdout of one fresh process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    assert child.stdout is not None
    stdout = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    if status:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}: {stdout[:300]!r}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def compile_argv(exe: str, root: Path, out: Path) -> list[str]:
    return [exe, "-o", "json", "compile", "--project-dir", str(root), "--output-dir", str(out)]


def paths(out: Path) -> list[Path]:
    return [path for path in sorted(out.rglob("*")) if path.is_file()]


def record(out: Path, recorded: Path) -> int:
    """Write ``out``'s files into ``recorded`` (the floor's input); returns how many there are."""
    files = paths(out)
    with open(recorded, "wb") as handle:
        handle.write("".join(f"{p.stat().st_size} {p.relative_to(out)}\n" for p in files).encode() + b"\n")
        for path in files:
            handle.write(path.read_bytes())
    return len(files)


def digest(out: Path) -> str:
    # One file at a time: this process's RSS when it starts a child counts in the child's max RSS on Linux.
    summed = hashlib.sha256()
    for path in paths(out):
        summed.update(str(path.relative_to(out)).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return summed.hexdigest()


def main(sizes: list[int], rounds: int, scratch_parent: str | None, base: str | None) -> None:
    exe = str(Path(sys.executable).with_name("streamt"))
    compilers = {"compile": exe, **({"base": base} if base else {})}
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    where = scratch_parent or tempfile.gettempdir()
    print(f"medians of {rounds} interleaved rounds in {where}; floor = C-loader parse + same files written + syncfs")
    print(f"{'models':>7} {'files':>6} {'column':<8} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'load avg':>10}")
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="compile-floor-", dir=scratch_parent) as tmp:
            scratch = Path(tmp)
            root = scratch / "project"
            generate(root, size)

            for name, path in compilers.items():  # the warm-ups; this checkout's output is the reference
                run_once(compile_argv(path, root, scratch / ("reference" if name == "compile" else name)))
            expected_digest = digest(scratch / "reference")
            recorded = scratch / "recorded.bin"
            files = record(scratch / "reference", recorded)
            for name in compilers:
                shutil.rmtree(scratch / ("reference" if name == "compile" else name))
            results: dict[str, list[tuple[float, float, float]]] = {"floor": [], **{name: [] for name in compilers}}
            load_before = os.getloadavg()[0]
            for round_ in range(rounds):
                out = scratch / f"floor-{round_}"
                wall, cpu, peak, stdout = run_once([sys.executable, "-c", FLOOR, str(root), str(recorded), str(out)])
                loaded_cpu, loaded_wall = (float(x) for x in stdout.split())
                results["floor"].append((wall - loaded_wall, cpu - loaded_cpu, peak))
                shutil.rmtree(out)
                for name, path in compilers.items():
                    out = scratch / f"{name}-{round_}"
                    wall, cpu, peak, _ = run_once(compile_argv(path, root, out))
                    results[name].append((wall, cpu, peak))
                    if digest(out) != expected_digest:
                        raise SystemExit(f"{name} round {round_} wrote a different tree than the recorded one")
                    shutil.rmtree(out)
            load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
            medians = {
                name: tuple(statistics.median(run[i] for run in runs) for i in range(3))
                for name, runs in results.items()
            }
            for name, (wall, cpu, peak) in medians.items():
                print(f"{size:>7} {files:>6} {name:<8} {wall:>7.2f} {cpu:>7.2f} {peak:>8.1f} {load:>10}")
            for name in compilers:
                ratio_wall, ratio_cpu = (medians[name][i] / medians["floor"][i] for i in range(2))
                print(f"{size:>7} {'':>6} {'ratio':<8} {ratio_wall:>7.2f} {ratio_cpu:>7.2f}   ({name} / floor)")
            sys.stdout.flush()


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds, sizes, scratch_parent, base = 5, [], None, None
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--base":
            base = args.pop(0)
        elif arg == "--dir":
            scratch_parent = args.pop(0)
        else:
            sizes.append(int(arg))
    main(sizes or [1000, 5000], rounds, scratch_parent, base)
