"""What users install is the source tree: every distribution's sdist, and the wheel built from it.

For each distribution, the files under its ``src/`` as git sees the tree (tracked or new, never
ignored: modules, ``py.typed``, the docs site's templates and assets, the Kafka Streams runner's
build context) must be in the sdist and in the wheel, byte for byte, and nothing else may be.
The meta-distribution ``streamt`` ships no files. The check itself is shown to fail on a wheel or
an sdist that lost one file.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from distributions import DISTRIBUTIONS, REPO, Built

RUNNER_ASSETS = [
    "streamt_kstreams/runner/Dockerfile",
    "streamt_kstreams/runner/pom.xml",
    "streamt_kstreams/runner/src/main/java/io/streamt/runner/Runner.java",
]


def digests(files: dict[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(content).hexdigest() for name, content in files.items()}


def source_files(directory: Path) -> dict[str, bytes]:
    """``src/``'s files by their path inside ``src/``: tracked or new, never git-ignored (``target/``, caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "src"],
        cwd=directory,
        capture_output=True,
        check=True,
    ).stdout.decode()
    paths = [directory / name for name in listed.split("\0") if name]
    return {p.relative_to(directory / "src").as_posix(): p.read_bytes() for p in paths if p.is_file()}


def sdist_files(sdist: Path) -> dict[str, bytes]:
    """The sdist's files under ``<name>-<version>/src/``, by their path inside ``src/``."""
    found = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/", 2)
            if member.isfile() and len(parts) == 3 and parts[1] == "src":
                found[parts[2]] = archive.extractfile(member).read()  # type: ignore[union-attr]
    return found


def wheel_files(wheel: Path) -> dict[str, bytes]:
    """The wheel's files outside its ``.dist-info``."""
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/") and ".dist-info/" not in n]
        return {name: archive.read(name) for name in names}


def differences(expected: dict[str, bytes], actual: dict[str, bytes]) -> list[str]:
    """What ``actual`` lacks, adds or changes against ``expected``, one line each (empty: equal)."""
    want, got = digests(expected), digests(actual)
    return (
        [f"missing {name}" for name in sorted(want.keys() - got.keys())]
        + [f"unexpected {name}" for name in sorted(got.keys() - want.keys())]
        + [f"changed {name}" for name in sorted(want.keys() & got.keys()) if want[name] != got[name]]
    )


@pytest.mark.parametrize("source", DISTRIBUTIONS, ids=lambda p: p.name if p.name.startswith("streamt") else "streamt")
def test_sdist_and_the_wheel_built_from_it_carry_exactly_the_source_files(
    built_distributions: dict[str, Built], source: Path
) -> None:
    (built,) = [b for b in built_distributions.values() if b.source == source]
    expected = source_files(source)
    assert differences(expected, sdist_files(built.sdist)) == [], built.sdist.name
    assert differences(expected, wheel_files(built.wheel)) == [], built.wheel.name


def test_every_distribution_is_built_and_the_runner_build_context_is_shipped(
    built_distributions: dict[str, Built],
) -> None:
    members = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["uv"]["workspace"]["members"]
    workspace = sorted({REPO, *(path for member in members for path in REPO.glob(member))})
    assert sorted(b.source for b in built_distributions.values()) == DISTRIBUTIONS == workspace
    assert wheel_files(built_distributions["streamt"].wheel) == {}  # the meta-distribution: extras only
    kstreams = wheel_files(built_distributions["streamt-kstreams"].wheel)
    assert set(RUNNER_ASSETS) <= set(kstreams)
    core = wheel_files(built_distributions["streamt-core"].wheel)
    assert {"streamt/py.typed", "streamt/docs_site/templates/base.html.j2", "streamt/docs_site/assets/site.css"} <= set(
        core
    )


def test_a_file_lost_from_the_wheel_or_the_sdist_fails_the_check(
    built_distributions: dict[str, Built], tmp_path: Path
) -> None:
    built = built_distributions["streamt-kstreams"]
    expected = source_files(built.source)
    lost = tmp_path / built.wheel.name
    with zipfile.ZipFile(built.wheel) as original, zipfile.ZipFile(lost, "w") as copy:
        for item in original.infolist():
            if item.filename != RUNNER_ASSETS[0]:
                copy.writestr(item, original.read(item))
    assert differences(expected, wheel_files(lost)) == [f"missing {RUNNER_ASSETS[0]}"]

    truncated = tmp_path / built.sdist.name
    with tarfile.open(built.sdist) as original, tarfile.open(truncated, "w:gz") as copy:
        for member in original.getmembers():
            if not member.name.endswith("/runner/src/main/java/io/streamt/runner/Runner.java"):
                copy.addfile(member, original.extractfile(member) if member.isfile() else None)
    assert differences(expected, sdist_files(truncated)) == [f"missing {RUNNER_ASSETS[2]}"]
    changed = {**expected, RUNNER_ASSETS[1]: expected[RUNNER_ASSETS[1]] + b"\n"}
    assert differences(expected, changed) == [f"changed {RUNNER_ASSETS[1]}"]
    assert differences(expected, {**expected, "streamt_kstreams/stray.py": b""}) == [
        "unexpected streamt_kstreams/stray.py"
    ]
