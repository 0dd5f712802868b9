"""A synthetic project of any size for the docs site tests and ``bench/docs_generate_bench.py``.

Chains of seven models with fan-outs of three per ten, one source per fifty models, an exposure
per hundred and a schema test per twenty, with owners, tags and typed columns, so every part of a
page is exercised. ``expected_edges`` is the lineage the project declares, computed independently
of streamt, for the browser test to compare the drawn graph with.
"""

from __future__ import annotations

from pathlib import Path

PER_FILE = 50


def upstream_of(i: int, sources: int) -> str:
    if i % 10 == 0:
        return f"src_{(i // 10) % sources}"
    if i % 10 < 7:
        return f"m_{i - 1}"
    return f"m_{i - i % 10}"


def generate(root: Path, models: int) -> None:
    sources = max(1, models // 50)
    (root / "models").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "stream_project.yml").write_text(
        "project: {name: docs-bench, description: synthetic project for the docs site}\n"
        "runtime:\n  kafka: {bootstrap_servers: 'localhost:9092'}\n"
        "defaults: {topic: {partitions: 3, replication_factor: 1}}\n"
    )
    (root / "sources" / "all.yml").write_text(
        "sources:\n"
        + "".join(
            f"  - name: src_{i}\n    topic: bench.src.{i}\n    owner: team-{i % 7}\n    description: raw feed {i}\n"
            "    columns:\n      - {name: id, type: STRING, classification: internal}\n"
            "      - {name: amount, type: BIGINT}\n"
            for i in range(sources)
        )
    )
    for start in range(0, models, PER_FILE):
        lines = ["models:"]
        for i in range(start, min(models, start + PER_FILE)):
            up = upstream_of(i, sources)
            call = f'source("{up}")' if up.startswith("src_") else f'ref("{up}")'
            lines += [
                f"  - name: m_{i}",
                f"    description: model {i} reads {up}",
                f"    owner: team-{i % 7}",
                f"    tags: [domain_{i % 5}, tier_{i % 3}]",
                "    materialized: topic",
                f"    sql: 'SELECT id, amount FROM {{{{ {call} }}}} WHERE amount > {i}'",
                "    columns:",
                "      - {name: id, type: STRING, description: the key}",
                "      - {name: amount, type: BIGINT}",
            ]
        (root / "models" / f"part_{start // PER_FILE:04d}.yml").write_text("\n".join(lines) + "\n")
    exposures = ["exposures:"] if models >= 100 else []
    for e in range(0, models, 100):
        exposures += [
            f"  - name: app_{e}",
            "    type: application",
            "    role: consumer",
            f"    owner: team-{e % 7}",
            f"    consumes: [{{ref: m_{e + 6 if e + 6 < models else e}}}]",
        ]
    tests = ["tests:"] if models >= 20 else []
    for t in range(0, models, 20):
        tests += [f"  - name: t_{t}", f"    model: m_{t}", "    type: schema", "    assertions:",
                  "      - not_null: {columns: [id]}"]  # fmt: skip
    (root / "models" / "more.yml").write_text("\n".join(exposures + tests) + "\n")


def expected_edges(models: int) -> set[tuple[str, str]]:
    sources = max(1, models // 50)
    edges = {(upstream_of(i, sources), f"m_{i}") for i in range(models)}
    edges |= {(f"m_{e + 6 if e + 6 < models else e}", f"app_{e}") for e in range(0, models, 100)}
    return edges


def expected_nodes(models: int) -> set[str]:
    sources = max(1, models // 50)
    return (
        {f"m_{i}" for i in range(models)}
        | {f"src_{i}" for i in range(sources)}
        | {f"app_{e}" for e in range(0, models, 100)}
    )
