"""Run from a source checkout, the distribution's modules come from ``src/``; installed, from site-packages."""

import sys
from pathlib import Path

_SRC = str(Path(__file__).resolve().parents[1] / "src")
if _SRC not in sys.path:
    sys.path.append(_SRC)  # after site-packages: an installed copy wins
