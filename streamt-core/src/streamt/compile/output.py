"""Writing a compiled output directory: all of it, or nothing.

The files are staged in a sibling directory and swapped in only when every
byte is on disk (``streamt.fsutil.staged_directory``), so a failed compile
leaves the previous output untouched. Because the swap replaces the whole
directory, streamt only ever replaces a directory that is empty or that it
wrote itself: ``--output-dir .`` must never delete a project.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

from streamt.compile.engine import CompiledProject
from streamt.compile.layout import MANIFEST, manifest, manifest_with_files
from streamt.errors import Codes, StreamtError
from streamt.fsutil import staged_directory

CHECKSUMS = "checksums.sha256"
# A manifest is ~2.1 MB per 1,000 models; one cut short by this limit is not JSON, so the directory is refused.
# (It was 16 MB: every re-compile of more than ~7,700 models was refused as "holds no streamt manifest.json".)
MANIFEST_READ_LIMIT = 256 * 1024 * 1024


def checksum_file(files: dict[str, bytes]) -> bytes:
    """``sha256sum -c`` input: ``<hex>  <path>`` per file, sorted by path."""
    return _checksum_lines({path: hashlib.sha256(data).hexdigest() for path, data in files.items()})


def _checksum_lines(digests: dict[str, str]) -> bytes:
    return "".join(f"{digest}  {path}\n" for path, digest in sorted(digests.items())).encode("utf-8")


def output_paths(listed: dict[str, Any], checksums: bool) -> list[str]:
    """Every path ``write_compiled`` writes for the manifest ``listed``, sorted (what a dry run lists)."""
    extra = [MANIFEST, CHECKSUMS] if checksums else [MANIFEST]
    return sorted([*listed["files"], *extra])


def write_compiled(
    target: Path,
    compiled: CompiledProject,
    checksums: bool,
    project_root: Path | None = None,
    listed: dict[str, Any] | None = None,
    probe: OutputProbe | None = None,
) -> list[str]:
    """Replace ``target`` with the compiled output, rendering and writing one artifact at a time.

    The bytes are those of ``render`` (a test compares them), but only one
    artifact's files are in memory at once: at 5,000 models the whole tree
    is ~20 MB plus the manifest. ``listed`` is ``manifest(compiled)`` when the
    caller has it already; ``probe`` is ``probe_output(target)`` taken before the compile. Returns the
    sorted paths written.
    """
    if listed is None:
        listed = manifest(compiled)  # every path decided and checked before anything is staged
    digests: dict[str, str] = {}

    def fill(base: str) -> None:
        digest = hashlib.sha256() if checksums else None
        keep = digests if checksums else None
        with open(os.path.join(base, MANIFEST), "xb") as handle:  # written as encoded: never whole in memory
            for part, files in chain(manifest_with_files(listed, compiled), [("\n", {})]):
                for relative, data in files.items():
                    _write(base, relative, data, keep)
                data = part.encode("utf-8")
                if digest is not None:
                    digest.update(data)
                handle.write(data)
        if digest is not None:
            digests[MANIFEST] = digest.hexdigest()
            _write(base, CHECKSUMS, _checksum_lines(digests), None)

    _stage(target, listed["files"], fill, project_root, probe)
    return output_paths(listed, checksums)


def write_output(target: Path, files: dict[str, bytes], project_root: Path | None = None) -> None:
    """Replace ``target`` with exactly ``files`` (relative path -> bytes), atomically."""

    def fill(base: str) -> None:
        for relative, data in files.items():
            _write(base, relative, data, None)

    _stage(target, list(files), fill, project_root)


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)  # open(path, "xb")'s flags


def _write(base: str, relative: str, data: bytes, digests: dict[str, str] | None) -> None:
    # String concatenation and bare descriptors: a Path object per file adds ~0.1 s at 15,000 files, a
    # buffered file object as much again. ``relative`` is a layout path ("/"-separated, never absolute):
    # unlike ``os.path.join``, concatenating cannot leave ``base`` even if one were absolute.
    fd = os.open(base + "/" + relative, _CREATE, 0o666)
    try:
        written = os.write(fd, data)  # one call for a regular file; the loop only for a short write
        if written < len(data):
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    if digests is not None:
        digests[relative] = hashlib.sha256(data).hexdigest()


def _stage(
    target: Path,
    paths: list[str],
    fill: Callable[[str], None],
    project_root: Path | None,
    probe: OutputProbe | None = None,
) -> None:
    target = Path(target).absolute()
    try:
        _check_replaceable(target, project_root, probe)
        with staged_directory(target) as staging:
            # One mkdir per directory, not per file: outputs hold thousands of files in a handful of folders.
            for directory in sorted({os.path.dirname(relative) for relative in paths} - {""}):
                os.makedirs(staging / directory, exist_ok=True)
            fill(os.fspath(staging))
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"Could not write '{target}': {exc.strerror or type(exc).__name__}. The previous output is unchanged.",
            "Check that the parent directory exists and is writable, and that the disk has space.",
        ) from None


def _check_replaceable(target: Path, project_root: Path | None, probe: OutputProbe | None) -> None:
    if project_root is not None:
        root = Path(project_root).resolve()
        resolved = target.resolve()
        if resolved == root or resolved in root.parents:
            _refuse(target, "it contains the project itself")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        _refuse(target, "it is not a directory")
    if not target.exists() or not any(target.iterdir()):
        return
    if not _written_by_streamt(target, probe):
        _refuse(target, "it is not empty and holds no streamt manifest.json")


@dataclass(frozen=True)
class OutputProbe:
    """What ``target/manifest.json`` said about its writer, and which file said it (``os.stat`` fields)."""

    stamp: tuple[int, ...]
    written_by_streamt: bool


def probe_output(target: Path) -> OutputProbe | None:
    """Read the previous output's manifest now, before a compile grows the heap.

    Parsing it costs ~2x its size for a moment (10 MB of text at 5,000 models); done after the compile,
    that lands on the command's peak memory. ``write_compiled`` still checks at the same point as
    before, and uses this verdict only if the manifest is still the same, unchanged file.
    """
    try:
        with open(Path(target).absolute() / MANIFEST, "rb") as handle:
            stamp = _stamp(os.fstat(handle.fileno()))
            return OutputProbe(stamp, _says_streamt_wrote_it(handle))
    except (OSError, ValueError):  # no manifest, or a path the later check reports as it always did
        return None


def _written_by_streamt(target: Path, probe: OutputProbe | None = None) -> bool:
    try:
        if probe is not None and _stamp(os.stat(target / MANIFEST)) == probe.stamp:
            return probe.written_by_streamt
        with open(target / MANIFEST, "rb") as handle:
            return _says_streamt_wrote_it(handle)
    except OSError:
        return False


def _stamp(status: os.stat_result) -> tuple[int, ...]:
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def _says_streamt_wrote_it(handle: BinaryIO) -> bool:
    try:
        manifest = json.loads(handle.read(MANIFEST_READ_LIMIT), object_pairs_hook=_writer_keys)
    except ValueError:
        return False
    generator = manifest.get("generator") if isinstance(manifest, dict) else None
    return isinstance(generator, dict) and generator.get("name") == "streamt-core"


def _writer_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Every object keeps only the two keys the verdict reads (the last of duplicates, as ``dict`` does):
    # the manifest's 10,000 artifact entries are never built whole.
    return {key: value for key, value in pairs if key == "generator" or key == "name"}


def _refuse(target: Path, why: str) -> None:
    raise StreamtError(
        Codes.E905_OUTPUT_WRITE_FAILED,
        f"Refusing to replace '{os.path.relpath(target)}': {why}.",
        "Choose an empty or new --output-dir; streamt replaces only directories it wrote.",
    )
