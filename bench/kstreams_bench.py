"""Benchmark: ``streamt runtime build`` cold and warm, and create-to-RUNNING of one Kafka Streams runner.

Needs the devstack's Docker Engine and Kafka (``./dev stack up --only kafka,docker``); reads their
endpoints from ``.stack/endpoints.json``.

* **cold build** — an empty Maven local repository (``MAVEN_OPTS=-Dmaven.repo.local=<temp>``: every
  plugin and dependency downloaded from Maven Central) and no Docker layer cache (the runner image of
  these inputs is removed first);
* **warm build** — the user's ``~/.m2`` and the engine's layer cache, as a second build on a machine;
* **create-to-RUNNING** — ``streamt apply`` of the Kafka Streams starter (two topics + one runner),
  timed from the start of the process to its exit (apply returns once the runner reports RUNNING),
  then the same runner alone, read from the container's own timestamps (created -> healthy).

Each figure is one run (builds take minutes; apply is repeated ``--runs`` times, best and median
shown). Everything the benchmark creates is removed again. Usage: ``./dev bench kstreams_bench
[--runs N] [--skip-cold]``. Results with the machine: ``bench/kstreams_results.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STREAMT = str(Path(sys.executable).with_name("streamt"))
BUILD_LABEL = "io.streamt.runner.build-input-hash"


def endpoints() -> dict[str, str]:
    data = json.loads((ROOT / ".stack" / "endpoints.json").read_text())
    missing = [k for k in ("docker_host", "kstreams_base_image", "kafka_bootstrap") if not data.get(k)]
    if missing:
        raise SystemExit(f"missing {', '.join(missing)}: run ./dev stack up --only kafka,docker")
    return data


def streamt(args: list[str], env: dict[str, str]) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([STREAMT, "-o", "json", *args], capture_output=True, text=True, env={**os.environ, **env})
    elapsed = time.perf_counter() - started
    envelope = json.loads(done.stdout)
    if done.returncode != 0:
        raise SystemExit(f"streamt {' '.join(args[:2])} failed: {envelope['errors']}")
    return elapsed, envelope["data"]


def build(eps: dict[str, str], env: dict[str, str], *, cold: bool) -> tuple[float, str]:
    import docker

    client = docker.DockerClient(base_url=eps["docker_host"])
    extra: dict[str, str] = {}
    scratch = None
    if cold:
        _, dry = streamt(["runtime", "build", "--dry-run"], env)
        for image in client.images.list(filters={"label": f"{BUILD_LABEL}={dry['build_input_hash']}"}):
            client.images.remove(image.id, force=True, noprune=True)  # keep the base
        scratch = tempfile.mkdtemp(prefix="streamt-bench-m2-")
        extra["MAVEN_OPTS"] = f"-Dmaven.repo.local={scratch}"
    try:
        args = ["runtime", "build", "--base-image", eps["kstreams_base_image"], "--timeout", "1800"]
        elapsed, data = streamt(args, {**env, **extra})
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        client.close()
    return elapsed, data["image"]


def create_to_running(eps: dict[str, str], env: dict[str, str], image: str) -> tuple[float, float]:
    import docker
    from kafka import KafkaAdminClient

    name = f"bench{uuid.uuid4().hex[:8]}"
    client = docker.DockerClient(base_url=eps["docker_host"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / name
        streamt(["init", "-p", str(root), "--executor", "kafka_streams", "--runner-image", image], env)
        try:
            elapsed, _ = streamt(["apply", "-p", str(root)], env)
            (container,) = client.containers.list(all=True, filters={"label": f"io.streamt.project={name}"})
            state = client.api.inspect_container(container.id)
            created = _ts(state["Created"])
            healthy = min(_ts(e["End"]) for e in state["State"]["Health"]["Log"] if e["ExitCode"] == 0)
            return elapsed, healthy - created
        finally:
            for container in client.containers.list(all=True, filters={"label": f"io.streamt.project={name}"}):
                container.remove(force=True)
            for volume in client.volumes.list(filters={"label": f"io.streamt.project={name}"}):
                volume.remove(force=True)
            admin = KafkaAdminClient(bootstrap_servers=eps["kafka_bootstrap"])
            admin.delete_topics([t for t in admin.list_topics() if t.startswith(f"{name}.")])
            admin.close()
            client.close()


def _ts(value: str) -> float:
    # Docker writes nanoseconds; datetime takes microseconds.
    head, _, frac = value.rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{head}.{(frac + '000000')[:6]}+00:00").timestamp()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-cold", action="store_true")
    args = parser.parse_args()
    eps = endpoints()
    env = {"DOCKER_HOST": eps["docker_host"], "KAFKA_BOOTSTRAP_SERVERS": eps["kafka_bootstrap"]}
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    if not args.skip_cold:
        seconds, image = build(eps, env, cold=True)
        print(f"runtime build cold (empty Maven repo, no layer cache): {seconds:.1f} s -> {image}")
    seconds, image = build(eps, env, cold=False)
    print(f"runtime build warm (~/.m2 + layer cache): {seconds:.1f} s -> {image}")
    applies, runners = [], []
    for _ in range(args.runs):
        apply_s, runner_s = create_to_running(eps, env, image)
        applies.append(apply_s)
        runners.append(runner_s)
    print(
        f"apply of the starter until RUNNING ({args.runs} runs): best {min(applies):.1f} s, "
        f"median {statistics.median(applies):.1f} s"
    )
    print(
        f"runner container created -> first healthy check: best {min(runners):.1f} s, "
        f"median {statistics.median(runners):.1f} s"
    )


if __name__ == "__main__":
    main()
