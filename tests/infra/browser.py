"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``.

``python3 tests/infra/browser.py ensure`` installs both with apt-get when either binary is missing
(as root; CI runs as root) and prints the two paths. It is idempotent: with both present it only
prints. No browser build is ever downloaded by a driver library: selenium is pointed at these
binaries explicitly, so its own driver manager never runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

PACKAGES = ("chromium", "chromium-driver")
BINARIES = {"chromium": ("chromium", "chromium-browser"), "chromedriver": ("chromedriver",)}


def find() -> dict[str, str | None]:
    """The installed binaries by role, ``None`` for one that is missing."""
    return {role: next((p for n in names if (p := shutil.which(n))), None) for role, names in BINARIES.items()}


def ensure() -> dict[str, str]:
    """Both binaries, installed first if needed; ``RuntimeError`` when that is impossible here."""
    found = find()
    if all(found.values()):
        return {k: str(v) for k, v in found.items()}
    if os.geteuid() != 0:
        raise RuntimeError(f"chromium/chromedriver missing; install {' '.join(PACKAGES)} with apt-get as root")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, capture_output=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES],
        check=True,
        env=env,
        capture_output=True,
    )
    found = find()
    missing = [k for k, v in found.items() if not v]
    if missing:
        raise RuntimeError(f"apt-get installed {' '.join(PACKAGES)} but {', '.join(missing)} is not on PATH")
    return {k: str(v) for k, v in found.items()}


if __name__ == "__main__":
    if sys.argv[1:] != ["ensure"]:
        sys.exit("usage: browser.py ensure")
    for role, path in ensure().items():
        print(f"{role} {path}")
