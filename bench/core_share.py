"""Core's share of the source lines: how thin the thin core is (issue 26 asks for at most 40 %).

Counts the lines of every ``.py`` file under each distribution's ``src/`` (``streamt-core``, the
provider plugins and the exporters; tests, docs and the Kafka Streams runner's Java excluded) and
prints one line per distribution, then core's share:

    ./dev bench core_share
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "streamt-core"


def distributions() -> list[Path]:
    """Every distribution directory with a ``src/`` folder, core first, then by path."""
    found = sorted(p.parent for p in ROOT.glob("streamt-*/src")) + sorted(
        p.parent for p in ROOT.glob("streamt-exporters/*/src")
    )
    return sorted(found, key=lambda p: (p.name != CORE, p.relative_to(ROOT).as_posix()))


def source_lines(distribution: Path) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in (distribution / "src").rglob("*.py"))


def main() -> int:
    counts = {d.relative_to(ROOT).as_posix(): source_lines(d) for d in distributions()}
    total = sum(counts.values())
    width = max(map(len, counts))
    for name, lines in counts.items():
        sys.stdout.write(f"{name:<{width}} {lines:>7,}\n")
    core = counts[CORE]
    sys.stdout.write(f"core share: {core:,} of {total:,} source lines ({100 * core / total:.1f} %)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
