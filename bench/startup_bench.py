"""Start-up cost of the CLI with every workspace plugin installed.

Runs, interleaved so that machine noise hits all of them alike:

* ``python -c pass``               — the floor: the interpreter alone
* ``streamt --help``               — assemble the command tree from every plugin
* ``streamt -o json plugins``      — also vet and describe every plugin

and prints the median and minimum wall time of each, the time over bare
Python, and the ratio to it, and the median CPU time (user + system) of each
child, which other sessions' load disturbs much less than wall time. Bytecode must be compiled (``./dev setup`` does,
``uv sync --compile-bytecode``) and ``PYTHONDONTWRITEBYTECODE`` is ignored for
the children so that their caches are the ones a user has.

    .venv/bin/python bench/startup_bench.py [--rounds 30] [--before TREE]

``--before TREE`` adds the same two commands run from another source tree of this repository
(e.g. an earlier commit, ``git archive <rev> | tar -x -C TREE``) through ``PYTHONPATH``, in the
same interleaved rounds, so that a change is measured before and after under the same load.
Repeat it to compare several trees; pass the current commit's tree as one of them too, so that
every side pays the same ``PYTHONPATH`` search (a longer path makes every import probe more).

``--install EXE`` adds the same two commands run by another installation's ``streamt`` executable
(e.g. ``/work/wt/base20/.venv/bin/streamt``, a virtual environment with editable installs of an
earlier tree and the same plugins): no ``PYTHONPATH``, so each side has exactly the ``sys.path``
a user has. Its label is the directory holding the virtual environment.

``--instructions`` runs each case once under ``valgrind --tool=cachegrind`` instead and prints the
instructions it executes (``PYTHONHASHSEED=0``): a count that other sessions' load cannot move, for
comparing changes of a few percent on a shared machine. It needs ``valgrind`` on ``PATH`` and
takes about ten seconds per case.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "streamt --help": [str(BIN / "streamt"), "--help"],
    "streamt -o json plugins": [str(BIN / "streamt"), "-o", "json", "plugins"],
}


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one run of ``argv``."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, argv)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


Cases = dict[str, tuple[list[str], dict[str, str]]]


def build_cases(trees: list[Path], installs: list[Path]) -> Cases:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",) and not k.startswith("STREAMT_")
    }
    cases = {name: (argv, env) for name, argv in CASES.items()}
    for tree in trees:
        sources = sorted(str(p) for p in tree.glob("**/src") if p.is_dir() and ".venv" not in p.parts)
        old = {**env, "PYTHONPATH": os.pathsep.join(sources)}
        label = "before" if len(trees) == 1 else tree.name
        cases.update({f"{name} ({label})": (argv, old) for name, argv in CASES.items() if name != "python -c pass"})
    for exe in installs:
        label = exe.absolute().parents[2].name  # <dir>/.venv/bin/streamt
        cases.update(
            {
                f"{name} ({label}, installed)": ([str(exe), *argv[1:]], env)
                for name, argv in CASES.items()
                if name != "python -c pass"
            }
        )
    return cases


def measure(rounds: int, cases: Cases) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    for argv, case_env in cases.values():  # warm the page cache and write any missing bytecode
        subprocess.run(argv, env=case_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    samples: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, (argv, case_env) in cases.items():
            wall, used = run_once(argv, case_env)
            samples[name].append(wall)
            cpu[name].append(used)
    return samples, cpu


def instructions(cases: Cases) -> dict[str, int]:
    """Instructions each case executes, counted by valgrind (after one ordinary run writes any bytecode)."""
    counts = {}
    for name, (argv, case_env) in cases.items():
        subprocess.run(argv, env=case_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
            env={**case_env, "PYTHONHASHSEED": "0"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
        found = re.search(r"I\s+refs:\s+([0-9,]+)", done.stderr)
        if found is None:
            raise RuntimeError(f"valgrind printed no instruction count for {name}")
        counts[name] = int(found.group(1).replace(",", ""))
    return counts


def plugin_count() -> int:
    import json

    done = subprocess.run(CASES["streamt -o json plugins"], capture_output=True, text=True, check=True)
    return int(json.loads(done.stdout)["data"]["count"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--before", type=Path, action="append", default=[], help="a source tree to compare against (repeatable)"
    )
    parser.add_argument(
        "--install", type=Path, action="append", default=[], help="another installation's streamt (repeatable)"
    )
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind instead")
    args = parser.parse_args()
    rounds = args.rounds
    cases = build_cases(args.before, args.install)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, {platform.system()} {platform.release()}")
    if args.instructions:
        counts = instructions(cases)
        python = counts["python -c pass"]
        print(f"python {platform.python_version()}, {plugin_count()} plugins installed, instructions (valgrind)\n")
        print("| command | instructions (M) | over bare Python (M) |")
        print("|---|---|---|")
        for name, count in counts.items():
            print(f"| `{name}` | {count / 1e6:.1f} | {(count - python) / 1e6:.1f} |")
        return
    samples, cpu = measure(rounds, cases)
    floor = statistics.median(samples["python -c pass"])
    cpu_floor = statistics.median(cpu["python -c pass"])
    print(f"python {platform.python_version()}, {plugin_count()} plugins installed, {rounds} rounds\n")
    print(
        "| command | median ms | min ms | over bare Python ms | ratio to bare Python"
        " | CPU median ms | CPU over Python ms |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, values in samples.items():
        median = statistics.median(values)
        used = statistics.median(cpu[name])
        print(
            f"| `{name}` | {median:.1f} | {min(values):.1f} | {median - floor:.1f} | {median / floor:.1f}x"
            f" | {used:.1f} | {used - cpu_floor:.1f} |"
        )


if __name__ == "__main__":
    main()
