"""Benchmark: ``streamt_flink.job.compile_model`` alone, in process, on the validate benchmark's projects.

The project is loaded and validated first (not timed); then every model a Flink job runs is compiled in
the compile walk's order, with the relations memo and the ``analyze`` cache as a fresh compile finds them
(the process is fresh). Prints the CPU and wall seconds of those calls and a digest of every artifact
(spec and files), so that two checkouts can be compared in the same run::

    python bench/flink_compile_bench.py PROJECT_DIR [--profile] [--load-only]

Run it with each checkout's own interpreter (``/work/wt/base-now/.venv/bin/python bench/...``): the
``streamt_flink`` imported is that venv's. The compile calls run inside ``itertools.starmap``, so
``valgrind --tool=callgrind --toggle-collect=starmap_next python bench/flink_compile_bench.py DIR`` counts
the instructions of ``compile_model`` alone (deterministic, unlike time on a shared machine).
``--load-only`` stops before compiling; ``--profile`` prints cProfile's top functions of the compile calls.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any


def _models(root: Path) -> tuple[Any, list[Any]]:
    from streamt.compile.order import declaration_order
    from streamt.plugins import get_plugins
    from streamt.project.loader import load_project
    from streamt.sdk import Model
    from streamt.validation import validate_project
    from streamt_flink.placement import runs_on_flink

    get_plugins()
    project = load_project(root)
    report = validate_project(project)
    if report.errors:
        raise SystemExit(f"the project does not validate: {report.errors[:3]}")
    walk = [d for d in declaration_order(project) if isinstance(d, Model) and runs_on_flink(d)]
    return project, walk


def _digest(artifacts: list[Any]) -> str:
    digest = hashlib.sha256()
    for artifact in artifacts:
        digest.update(json.dumps(artifact.spec, sort_keys=True).encode())
        for suffix, text in sorted(artifact.files.items()):
            digest.update(suffix.encode() + b"\0" + text.encode())
    return digest.hexdigest()[:16]


def main(argv: list[str]) -> None:
    import gc

    from streamt_flink.job import compile_model

    project, walk = _models(Path(argv[0]))
    if "--load-only" in argv:
        print(f"models {len(walk)} (load only)")
        return
    gc.disable()  # the CLI pauses the collector while it compiles (streamt.collector)
    profile = None
    if "--profile" in argv:
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    cpu, wall = time.process_time(), time.perf_counter()
    # Inside itertools.starmap (used nowhere else) so that callgrind can count these calls alone.
    artifacts = list(itertools.starmap(compile_model, ((project, model) for model in walk)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profile is not None:
        import pstats

        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    print(f"models {len(walk)} compile_model cpu {cpu:.3f} s wall {wall:.3f} s digest {_digest(artifacts)}")


if __name__ == "__main__":
    main(sys.argv[1:])
