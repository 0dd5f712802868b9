"""Download and verify everything the stack runs: Maven jar sets, the Flink PyPI distribution,
the Apicurio archive.  All of it lives in the cache folder (plus ``~/.m2``), never in git.

Each Maven set is one pinned POM under ``tests/infra/maven/<set>/``; its resolved jars are
recorded with their SHA-256 in ``tests/infra/jars.sha256``, checked after every resolution.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

from . import config
from .config import CACHE_DIR, CHECKSUM_FILE, MAVEN_DIR

MAVEN_SETS = ("kafka", "connect", "connect-file", "connect-jdbc", "flink", "apicurio")
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _inputs_digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()


def jar_dir(set_name: str) -> Path:
    return CACHE_DIR / "jars" / set_name


def resolve(set_name: str, log=print) -> Path:
    """Copy the set's dependencies into the cache; a no-op when the POM has not changed."""
    with _lock("mvn:" + set_name):
        pom = MAVEN_DIR / set_name / "pom.xml"
        settings = MAVEN_DIR / "settings.xml"
        out = jar_dir(set_name)
        stamp = out / ".inputs.sha256"
        digest = _inputs_digest(pom, settings)
        if stamp.exists() and stamp.read_text().strip() == digest:
            return out
        log(f"[fetch] resolving Maven set '{set_name}' (cached in ~/.m2 after the first time)")
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        cmd = [
            "mvn",
            "-B",
            "-q",
            "-s",
            str(settings),
            "-f",
            str(pom),
            f"{DEPENDENCY_PLUGIN}:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={out}",
        ]
        if os.environ.get("STREAMT_DEVSTACK_M2"):
            # A private local repository, e.g. to measure a cold start without touching ~/.m2.
            cmd.append(f"-Dmaven.repo.local={os.environ['STREAMT_DEVSTACK_M2']}")
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"mvn failed for set '{set_name}':\n{res.stdout[-3000:]}{res.stderr[-2000:]}")
        stamp.write_text(digest)
        return out


def flink_venv(log=print) -> Path:
    """A dedicated venv holding apache-flink + apache-flink-libraries; returns the pyflink dir."""
    with _lock("flink-venv"):
        venv = CACHE_DIR / f"flink-{config.FLINK_VERSION}-venv"
        stamp = venv / ".installed"
        if not stamp.exists():
            log(f"[fetch] installing apache-flink {config.FLINK_VERSION} from PyPI into {venv}")
            if venv.exists():
                shutil.rmtree(venv)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            # --no-deps: only the jars and scripts are used, never PyFlink itself, so Beam,
            # pandas and pyarrow (hundreds of MB) are not needed.
            res = subprocess.run(
                [
                    str(venv / "bin" / "pip"),
                    "install",
                    "-q",
                    "--no-deps",
                    f"apache-flink=={config.FLINK_VERSION}",
                    f"apache-flink-libraries=={config.FLINK_VERSION}",
                ],
                capture_output=True,
                text=True,
            )
            if res.returncode != 0:
                raise RuntimeError(f"pip install apache-flink failed:\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
            stamp.write_text(config.FLINK_VERSION)
        found = sorted(venv.glob("lib/python*/site-packages/pyflink"))
        if not found:
            raise RuntimeError(f"pyflink not found in {venv}")
        return found[0]


def apicurio_home(log=print) -> Path:
    """The unpacked Quarkus fast-jar layout of apicurio-registry-app (quarkus-run.jar + lib/)."""
    with _lock("apicurio"):
        home = CACHE_DIR / f"apicurio-{config.APICURIO_VERSION}"
        if (home / ".unpacked").exists():
            return home
        archive_dir = resolve("apicurio", log)
        archives = sorted(archive_dir.glob("apicurio-registry-app-*-all.tar.gz"))
        if not archives:
            raise RuntimeError(f"no apicurio archive in {archive_dir}")
        log(f"[fetch] unpacking {archives[0].name}")
        if home.exists():
            shutil.rmtree(home)
        tmp = home.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        with tarfile.open(archives[0]) as tf:
            tf.extractall(tmp, filter="data")
        (tmp / ".unpacked").write_text(archives[0].name)
        tmp.rename(home)
        return home


def _set_files(set_name: str) -> dict[str, Path]:
    out = jar_dir(set_name)
    if not out.exists():
        return {}
    return {f"{set_name}/{p.name}": p for p in sorted(out.iterdir()) if not p.name.startswith(".")}


def _pyflink_files() -> dict[str, Path]:
    venv = CACHE_DIR / f"flink-{config.FLINK_VERSION}-venv"
    if not (venv / ".installed").exists():
        return {}
    lib = flink_venv() / "lib"
    return {f"pyflink/lib/{p.name}": p for p in sorted(lib.glob("*.jar"))}


def all_files() -> dict[str, Path]:
    files: dict[str, Path] = {}
    for s in MAVEN_SETS:
        files.update(_set_files(s))
    files.update(_pyflink_files())
    return files


def _read_checksums() -> dict[str, str]:
    sums: dict[str, str] = {}
    if CHECKSUM_FILE.exists():
        for line in CHECKSUM_FILE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                digest, name = line.split(None, 1)
                sums[name.strip()] = digest
    return sums


_VERIFIED = CACHE_DIR / "verified.json"


def _verify_files(files: dict[str, Path], *, update: bool) -> list[str]:
    """Hash files whose size or mtime changed since the last check; compare to jars.sha256.

    Returns the problems found (empty = all good).  A file missing from jars.sha256 is a
    problem too: a new jar must be recorded on purpose, with ``fetch --update-checksums``.
    """
    expected = _read_checksums()
    try:
        seen = json.loads(_VERIFIED.read_text())
    except (OSError, ValueError):
        seen = {}
    problems = []
    for name, path in files.items():
        st = path.stat()
        key = f"{st.st_size}:{st.st_mtime_ns}"
        cached = seen.get(str(path))
        if cached and cached["key"] == key:
            digest = cached["sha256"]
        else:
            digest = _sha256(path)
            seen[str(path)] = {"key": key, "sha256": digest}
        if update:
            expected[name] = digest
        elif name not in expected:
            problems.append(f"{name}: not recorded in {CHECKSUM_FILE.name}")
        elif expected[name] != digest:
            problems.append(f"{name}: sha256 {digest} != recorded {expected[name]}")
    _VERIFIED.parent.mkdir(parents=True, exist_ok=True)
    _VERIFIED.write_text(json.dumps(seen))
    if update:
        lines = [
            "# SHA-256 of every jar/archive the devstack runs. Regenerate on purpose with:",
            "#   python3 tests/infra/devstack.py fetch --update-checksums",
        ]
        lines += [f"{expected[k]}  {k}" for k in sorted(expected)]
        CHECKSUM_FILE.write_text("\n".join(lines) + "\n")
    if problems and not update:
        raise RuntimeError("jar checksum verification failed:\n  " + "\n  ".join(problems))
    return problems


def fetch_all(*, update_checksums: bool = False, log=print) -> None:
    for s in MAVEN_SETS:
        resolve(s, log)
    apicurio_home(log)
    flink_venv(log)
    _verify_files(all_files(), update=update_checksums)


def verify_present() -> None:
    """Verify every artifact fetched so far (a partial ``up --only`` fetched only some)."""
    _verify_files(all_files(), update=False)
