"""Where the team's shared reference material is: ``shared/`` with the CLI reference (``seeds/``), the spec
examples, the early streamt's compatibility corpus and the official export schemas.

It is test data that sits beside the repository and is never copied into it, so a checkout placed anywhere else
(a CI clone in a temporary directory) still has to find it. One answer for every test, in this order:
``STREAMT_SHARED_DIR``, then ``../shared`` from the repository root, then ``/work/shared`` (where the team's
machines keep it). When none exists the first candidate is returned, and the tests that need it fail or skip
naming that path.

Importable as ``shared_material`` from every test module: the root ``conftest.py`` puts ``tests/infra`` on the path.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def locate() -> Path:
    configured = os.environ.get("STREAMT_SHARED_DIR")
    if configured:
        return Path(configured).resolve()
    candidates = [REPO.parent / "shared", Path("/work/shared")]
    return next((path for path in candidates if (path / "spec").is_dir()), candidates[0])


SHARED = locate()
