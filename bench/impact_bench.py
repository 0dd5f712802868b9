"""Benchmark: ``streamt impact`` between two refs of a synthetic project vs two ``compile --dry-run`` runs.

The project is the validate benchmark's generator (chains and fan-outs, Jinja refs, 50 models per file,
every model a Flink job with its topic), committed to a fresh Git repository; the second commit changes
one chain head's filter predicate and one description, so the report has a real downstream closure.
Each measurement is a fresh process, best of three; ``impact`` is compared with the sum of the best
``compile --dry-run`` of each side (what a CI job would otherwise pay to compile both sides).
Usage: ``./dev bench impact_bench [sizes...]`` (default 1000 5000); ``--stages`` adds an in-process
breakdown (Git reads, each snapshot, comparison and closure).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validate_bench import generate  # the shared synthetic-project generator

STREAMT = Path(sys.executable).with_name("streamt")


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def best_of_three(argv: list[str]) -> tuple[float, bytes]:
    best, out = float("inf"), b""
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv[:4])} failed: {done.stdout[:500]!r} {done.stderr[:500]!r}")
        best, out = min(best, elapsed), done.stdout
    return best, out


def stages(repo: Path) -> str:
    """Seconds per step of one impact run, in this process (imports and plugin loading excluded)."""
    from streamt.plugins import get_plugins
    from streamt_impact.gitread import Repository
    from streamt_impact.report import build
    from streamt_impact.snapshot import Side, take

    get_plugins()
    marks = [time.perf_counter()]
    repository = Repository.containing(repo)
    commits = [repository.resolve(ref) for ref in ("HEAD~1", "HEAD")]
    files = [repository.project_files(commit) for commit in commits]
    marks.append(time.perf_counter())
    base = take(Side("base", "HEAD~1", commits[0]), files[0], None)
    marks.append(time.perf_counter())
    head = take(Side("head", "HEAD", commits[1]), files[1], None)
    marks.append(time.perf_counter())
    build(base, head)
    marks.append(time.perf_counter())
    names = ("git read (both refs)", "snapshot base", "snapshot head", "compare + closure")
    return ", ".join(f"{name} {b - a:.2f}" for name, a, b in zip(names, marks, marks[1:], strict=False))


def main(sizes: list[int], with_stages: bool) -> None:
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"{'models':>7} {'compile base':>13} {'compile head':>13} {'sum':>7} {'impact':>8} {'ratio':>6} changes")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            generate(repo, size)
            git(repo, "init", "-q", "-b", "main")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "base")
            base_dir = Path(tmp) / "base"
            git(repo, "worktree", "add", "-q", str(base_dir), "HEAD")
            part = repo / "models" / "part_0000.yml"
            text = part.read_text()
            text = text.replace("WHERE amount > 1'", "WHERE amount > 100'", 1).replace("model 2\n", "model two\n", 1)
            part.write_text(text)
            git(repo, "commit", "-q", "-am", "head")
            compile_argv = [str(STREAMT), "-o", "json", "compile", "--dry-run", "--project-dir"]
            base_s, _ = best_of_three([*compile_argv, str(base_dir)])
            head_s, _ = best_of_three([*compile_argv, str(repo)])
            impact_s, out = best_of_three(
                [str(STREAMT), "-o", "json", "impact", "-p", str(repo), "--base", "HEAD~1", "--head", "HEAD"]
            )
            summary = json.loads(out)["data"]["summary"]
            total = base_s + head_s
            print(
                f"{size:>7} {base_s:>13.2f} {head_s:>13.2f} {total:>7.2f} {impact_s:>8.2f} {impact_s / total:>6.2f} "
                f"{summary['resources_changed']} changed, {summary['impacted']} impacted"
            )
            if with_stages:
                print(f"        stages (s): {stages(repo)}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main([int(a) for a in args if not a.startswith("--")] or [1000, 5000], "--stages" in args)
