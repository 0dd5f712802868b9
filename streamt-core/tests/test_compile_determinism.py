"""Byte-identical output across runs, processes, PYTHONHASHSEED values and file discovery order.

Each compile runs in its own interpreter (``python -m streamt``-style via the
console entry point), so nothing cached in this process can hide a
difference. The project is written twice with the same declarations spread
over differently named and ordered files, which changes discovery order.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from streamt_testing import write_project

RUNTIME = {"kafka": {"bootstrap_servers": "localhost:9092"}, "schema_registry": {"url": "http://localhost:8081"}}


def declarations(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    columns = [{"name": "id", "type": "STRING", "required": True}, {"name": "amount", "type": "DECIMAL(10,2)"}]
    sources = [
        {
            "name": f"src_{i}",
            "topic": f"in.src-{i}.v1",
            "ownership": {"mode": "managed" if i % 2 else "external"},
            "schema": {"format": "avro"},
            "columns": columns,
        }
        for i in range(n)
    ]
    models = [
        {
            "name": f"m_{i}",
            "topic": {"name": f"out.m-{i}.v1", "partitions": 1 + i % 4, "config": {"retention.ms": 1000 * i}},
        }
        for i in range(n)
    ]
    return sources, models


def write_variant(root: Path, reverse: bool) -> Path:
    sources, models = declarations(12)
    project = {
        "project": {"name": "det", "version": "1.0.0"},
        "runtime": RUNTIME,
        "defaults": {"topic": {"partitions": 2, "replication_factor": 1, "config": {"cleanup.policy": "delete"}}},
    }
    files: dict[str, Any] = {"stream_project.yml": project}
    order = list(range(len(models)))
    if reverse:
        order.reverse()
    for position, i in enumerate(order):
        prefix = "z" if reverse else "a"
        files[f"models/{prefix}{position:02d}/m.yml"] = {"models": [models[i]]}
        files[f"sources/{prefix}{position:02d}.yaml"] = {"sources": [sources[i]]}
    return write_project(root, files)


def streamt(*args: str, seed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "STREAMT_LOAD_PLUGINS": "kafka"}
    script = "import sys; from streamt.cli import run; sys.exit(run(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", ["compile", "build"])
def test_output_bytes_do_not_depend_on_process_hash_seed_or_discovery_order(tmp_path: Path, command: str) -> None:
    outputs = []
    for run, (seed, reverse) in enumerate([("0", False), ("1", True), ("4242", False), ("random", True)]):
        project = write_variant(tmp_path / f"project{run}", reverse)
        target = tmp_path / f"out{run}"
        done = streamt(command, "--project-dir", str(project), "--output-dir", str(target), seed=seed)
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append(tree(target))
    assert len(outputs[0]) > 20
    for other in outputs[1:]:
        assert other == outputs[0]


def test_offline_plan_files_are_byte_identical_across_processes(tmp_path: Path) -> None:
    plans = []
    for run, (seed, reverse) in enumerate([("0", False), ("99", True)]):
        project = write_variant(tmp_path / f"project{run}", reverse)
        out = tmp_path / f"plan{run}.json"
        done = streamt("plan", "--offline", "--project-dir", str(project), "--out", str(out), seed=seed)
        assert done.returncode == 0, done.stdout + done.stderr
        plans.append(out.read_bytes())
    assert plans[0] == plans[1]
