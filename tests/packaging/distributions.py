"""The workspace's distributions, for the packaging tests that build all of them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import attrs

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "streamt-core"
# The conformance kit: what a plugin's dev dependency group adds for its tests (pytest with it).
KIT = REPO / "streamt-testing"
# The meta-distribution `streamt` (the workspace root), core, the provider and exporter plugins.
DISTRIBUTIONS = sorted(
    [REPO, *(p.parent for p in REPO.glob("streamt-*/pyproject.toml"))]
    + [p.parent for p in REPO.glob("streamt-exporters/streamt-exporter-*/pyproject.toml")]
)


def project_name(directory: Path) -> str:
    return str(tomllib.loads((directory / "pyproject.toml").read_text())["project"]["name"])


@attrs.frozen
class Built:
    """One distribution's source tree, its sdist, and the wheel built from that sdist (not from the tree)."""

    source: Path
    sdist: Path
    wheel: Path
