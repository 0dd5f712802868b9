"""Where each artifact goes on disk, and the manifest that lists them (dsl.md section 18).

The output is deterministic: JSON with sorted keys and a trailing newline,
paths sorted. ``manifest`` decides every path without rendering a byte (what
plans and dry runs need); ``render`` builds the whole tree in memory, while
``streamt.compile.output`` renders and writes one artifact at a time. Each kind's directory,
manifest key and file naming are what its plugin registers (``streamt.artifact_kinds``); the
manifest lists every registered key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from json.encoder import encode_basestring  # the C escaper, as the C encoder uses for strings
from typing import Any

from streamt import __version__
from streamt.artifact_kinds import ArtifactKinds, artifact_kinds
from streamt.artifacts import Artifact, remember_checksum
from streamt.compile.engine import CompiledProject
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.fsutil import MAX_FILE_NAME_BYTES
from streamt.json_fast import sorted_compact
from streamt.plugins import get_plugins

MANIFEST = "manifest.json"
MANIFEST_FORMAT_VERSION = 1

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
_PARTIAL_ESCAPE = re.compile(r"%[0-9A-F]?$")


def file_stem(identity: str) -> str:
    """A file name for a physical identity that can never leave its directory.

    Topic names are already safe; anything else (``/`` in a subject, a
    leading dot) is percent-encoded, so distinct identities stay distinct.
    """
    stem = _SAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), identity)
    return "%2E" + stem[1:] if stem.startswith(".") else stem


def fitted_stem(stem: str, limit: int) -> str:
    """``stem`` when it has at most ``limit`` bytes; else its start and a digest of all of it, ``limit`` bytes.

    File systems hold 255 bytes per file name, and a subject or a plugin's identity may be longer. ``~``
    is never in a ``file_stem``, so a shortened stem cannot meet an unshortened one.
    """
    if len(stem) <= limit:  # ASCII: a file_stem percent-encodes everything else
        return stem
    head = _PARTIAL_ESCAPE.sub("", stem[: limit - 17])  # never half of a %XX
    return f"{head}~{hashlib.sha256(stem.encode()).hexdigest()[:16]}"


def kinds_of(compiled: CompiledProject | None) -> ArtifactKinds:
    """The registry ``compiled`` was compiled with (the installed plugins' when it has none)."""
    found = compiled.artifact_kinds if compiled is not None else None
    return found if found is not None else artifact_kinds(get_plugins())


def _base(artifact: Artifact, kinds: ArtifactKinds) -> str:
    # dsl.md section 18 names some files after the model, not the provider-side identity
    # (a Gateway rule's identity is its alias topic): the kind's registration says which.
    directory, _ = kinds.placement(artifact.kind)
    stem = file_stem(artifact.name if kinds.named_by_model(artifact.kind) else artifact.identity)
    longest_suffix = max(len(suffix.encode()) for suffix in (".json", *artifact.files))
    return f"{directory}/{fitted_stem(stem, MAX_FILE_NAME_BYTES - longest_suffix)}"


def artifact_paths(artifact: Artifact, kinds: ArtifactKinds | None = None) -> list[str]:
    """The paths ``artifact_files`` writes, in the same order, without rendering them."""
    base = _base(artifact, kinds or kinds_of(None))
    return [f"{base}.json", *(f"{base}{suffix}" for suffix in sorted(artifact.files))]


def artifact_files(artifact: Artifact, kinds: ArtifactKinds | None = None) -> dict[str, bytes]:
    """The files of one artifact: its spec as JSON plus any rendered extras (``.sql``)."""
    base = _base(artifact, kinds or kinds_of(None))
    files = {f"{base}.json": pretty_json(artifact.spec)}
    for suffix, text in sorted(artifact.files.items()):
        files[f"{base}{suffix}"] = text.encode("utf-8")
    return files


# ``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))``, with less work per
# call (a 5,000-model output makes 250,000 of these calls).
_COMPACT = sorted_compact(", ", ": ")


def layered_json(value: Any, depth: int, indent: str = "") -> str:
    """Canonical JSON with one line per item for the first ``depth`` levels, compact below.

    ``json.dumps(indent=...)`` falls back to the pure-Python encoder (seconds
    for a 5,000-model manifest); compact items use the C encoder, and one
    artifact per line still reads and diffs well. Keys are sorted at every level.
    """
    if depth <= 0 or not isinstance(value, (dict, list)) or not value:
        return _COMPACT(value)
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{_COMPACT(k)}: {layered_json(v, depth - 1, inner)}" for k, v in sorted(value.items())]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + layered_json(v, depth - 1, inner) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def pretty_json(value: Any, depth: int = 2) -> bytes:
    return (layered_json(value, depth) + "\n").encode("utf-8")


class _NotPlain(Exception):
    """A key that is not a ``str`` above the compact levels: left to ``layered_json`` and the C encoder."""


_LITERALS = {None: "null", True: "true", False: "false"}


def _layered_and_compact(value: Any, depth: int, indent: str) -> tuple[str, str]:
    """``(layered_json(value, depth, indent), _COMPACT(value))``, each leaf below ``depth`` encoded once for both.

    The compact text of a map or list is its items' texts joined with ", " (keys sorted): what the
    C encoder writes. Raises ``_NotPlain`` for a non-``str`` key, which the two encoders write differently.
    """
    if depth <= 0 or not isinstance(value, (dict, list)) or not value:
        text = _COMPACT(value)
        return text, text
    inner = indent + "  "
    lines: list[str] = []
    items: list[str] = []
    pairs = sorted(value.items()) if isinstance(value, dict) else None
    for key, item in pairs if pairs is not None else ((None, v) for v in value):
        if depth > 1 and item and isinstance(item, (dict, list)):
            layered, compact = _layered_and_compact(item, depth - 1, inner)
        elif type(item) is str:
            layered = compact = encode_basestring(item)
        elif item is None or item is True or item is False:
            layered = compact = _LITERALS[item]
        elif type(item) is int:
            layered = compact = int.__repr__(item)
        else:
            layered = compact = _COMPACT(item)
        if pairs is None:
            lines.append(inner + layered)
            items.append(compact)
            continue
        if type(key) is not str:
            raise _NotPlain
        name = encode_basestring(key)
        lines.append(f"{inner}{name}: {layered}")
        items.append(f"{name}: {compact}")
    if pairs is None:
        return "[\n" + ",\n".join(lines) + "\n" + indent + "]", "[" + ", ".join(items) + "]"
    return "{\n" + ",\n".join(lines) + "\n" + indent + "}", "{" + ", ".join(items) + "}"


def artifact_texts(artifact: Artifact, kinds: ArtifactKinds | None = None) -> tuple[dict[str, bytes], str]:
    """``artifact_files(artifact)`` and the compact JSON of its spec (its manifest line's), from one encoding."""
    kinds = kinds or kinds_of(None)
    try:
        layered, compact = _layered_and_compact(artifact.spec, 2, "")
    except _NotPlain:
        return artifact_files(artifact, kinds), _COMPACT(artifact.spec)
    base = _base(artifact, kinds)
    files = {f"{base}.json": (layered + "\n").encode("utf-8")}
    for suffix, text in sorted(artifact.files.items()):
        files[f"{base}{suffix}"] = text.encode("utf-8")
    return files, compact


MANIFEST_DEPTH = 3  # one artifact, one line


def manifest_with_files(listed: dict[str, Any], compiled: CompiledProject) -> Iterator[tuple[str, dict[str, bytes]]]:
    """``layered_json(listed, MANIFEST_DEPTH)`` in pieces, each artifact's files beside its manifest line.

    Files come in manifest order, so each spec is encoded once for its file and its line (the line's
    ``"spec"`` is its last key) and nothing is held for later. ``listed`` is ``manifest(compiled)``.
    """
    ordered = _in_manifest_order(compiled)
    kinds = kinds_of(compiled)
    nothing: dict[str, bytes] = {}
    yield "{\n", nothing
    for position, (key, value) in enumerate(sorted(listed.items())):
        yield f"{_NEXT if position else ''}  {_COMPACT(key)}: ", nothing
        if key != "artifacts" or not value:
            yield layered_json(value, MANIFEST_DEPTH - 1, "  "), nothing  # one piece: "files" is 15,000 short lines
            continue
        yield "{\n", nothing
        for group, (name, entries) in enumerate(sorted(value.items())):
            yield f"{_NEXT if group else ''}    {_COMPACT(name)}: ", nothing
            if not entries:
                yield "[]", nothing
                continue
            yield "[\n", nothing
            for line, entry in enumerate(entries):
                files, text = _entry_line(entry, next(ordered), kinds)
                yield f"{_NEXT if line else ''}      {text}", files
            yield "\n    ]", nothing
        yield "\n  }", nothing
    yield "\n}", nothing


_NEXT = ",\n"  # between the items of a layered level


def _entry_line(entry: dict[str, Any], artifact: Artifact, kinds: ArtifactKinds) -> tuple[dict[str, bytes], str]:
    files, spec = artifact_texts(artifact, kinds)
    if entry.get("spec") is not artifact.spec or len(entry) < 2 or max(entry) != "spec":
        return files, _COMPACT(entry)
    head = _COMPACT({key: value for key, value in entry.items() if key != "spec"})
    return files, f'{head[:-1]}, "spec": {spec}}}'


def render(compiled: CompiledProject) -> tuple[dict[str, bytes], dict[str, Any]]:
    """All output files (path -> bytes, sorted by path, manifest included) and the manifest, in memory."""
    manifest_value = manifest(compiled)
    kinds = kinds_of(compiled)
    files: dict[str, bytes] = {}
    for artifact in compiled.artifacts:
        files.update(artifact_files(artifact, kinds))
    files[MANIFEST] = pretty_json(manifest_value, depth=MANIFEST_DEPTH)
    return dict(sorted(files.items())), manifest_value


def manifest(compiled: CompiledProject) -> dict[str, Any]:
    """The manifest, with every output path decided and checked, without rendering any file."""
    return _listed(compiled, checksums=True)


def checksummed_manifest(compiled: CompiledProject) -> tuple[dict[str, Any], str]:
    """``manifest(compiled)`` and its ``manifest_checksum``, each spec canonically encoded once for both.

    The entries are visited in manifest order: each spec's canonical text gives its artifact's checksum
    (remembered, so plan actions read it for free) and, whole, its part of the digest.
    """
    listed = _listed(compiled, checksums=False)
    ordered = _in_manifest_order(compiled)
    groups = listed["artifacts"]
    digest = hashlib.sha256(b'{"artifacts":{')
    for group, (name, entries) in enumerate(sorted(groups.items())):
        digest.update(f"{',' if group else ''}{_CANONICAL(name)}:[".encode())
        for line, entry in enumerate(entries):
            artifact = next(ordered)
            spec = _CANONICAL(artifact.spec)
            entry["checksum"] = remember_checksum(artifact, spec.encode("utf-8"))
            head = _CANONICAL({key: value for key, value in entry.items() if key != "spec"})
            digest.update(f'{"," if line else ""}{head[:-1]},"spec":{spec}}}'.encode())
        digest.update(b"]")
    digest.update(b"}")
    for key, value in sorted(listed.items())[1:]:  # "artifacts" sorts first
        digest.update(f",{_CANONICAL(key)}:".encode())
        for part in canonical_parts(value, MANIFEST_DEPTH - 1):
            digest.update(part.encode("utf-8"))
    digest.update(b"}")
    return listed, "sha256:" + digest.hexdigest()


def _in_manifest_order(compiled: CompiledProject) -> Iterator[Artifact]:
    # The manifest's order: by manifest key, then identity, then compiled order (``manifest`` groups in
    # compiled order and sorts stably). A list of references, not a map: 10,000 small maps cost ~6 MB.
    placement = kinds_of(compiled).placement
    return iter(sorted(compiled.artifacts, key=lambda artifact: (placement(artifact.kind)[1], artifact.identity)))


def _listed(compiled: CompiledProject, checksums: bool) -> dict[str, Any]:
    # Without ``checksums`` every entry's "checksum" is None, for ``checksummed_manifest`` to fill in.
    kinds = kinds_of(compiled)
    paths: list[str] = []
    owners: dict[str, Artifact] = {}
    entries: dict[str, list[dict[str, Any]]] = {key: [] for key in kinds.manifest_keys}
    problems = []
    for artifact in compiled.artifacts:
        produced = artifact_paths(artifact, kinds)
        for path in produced:
            # Case-insensitive file systems would merge names differing by case only.
            other = owners.setdefault(path.lower(), artifact)
            if other is not artifact:
                problems.append(_path_collision(path, other, artifact))
        paths.extend(produced)
        _, key = kinds.placement(artifact.kind)
        entries.setdefault(key, []).append(_entry(artifact, sorted(produced), checksums))
    if problems:
        raise StreamtError.from_diagnostics(problems)
    return {
        "artifacts": {key: sorted(items, key=lambda e: e["identity"]) for key, items in sorted(entries.items())},
        "environment": compiled.environment,
        "files": sorted(paths),
        "format_version": MANIFEST_FORMAT_VERSION,
        "generator": {"name": "streamt-core", "version": __version__},
        "project": {
            "description": compiled.project_description,
            "name": compiled.project_name,
            "version": compiled.project_version,
        },
    }


def manifest_checksum(manifest: dict[str, Any]) -> str:
    """The digest plans bind to: every artifact checksum, path and ownership, canonically.

    ``sha256_checksum(canonical_json(manifest))``, hashed in pieces: at 5,000 models the
    canonical text is ~15 MB, held twice (str and bytes) if built whole.
    """
    digest = hashlib.sha256()
    for part in canonical_parts(manifest, MANIFEST_DEPTH):
        digest.update(part.encode("utf-8"))
    return "sha256:" + digest.hexdigest()


# ``canonical_json``'s encoder (sorted keys, no spaces); its text is what the pieces join to.
_CANONICAL = sorted_compact(",", ":")


def canonical_parts(value: Any, depth: int) -> Iterator[str]:
    if depth <= 0 or not isinstance(value, (dict, list)):
        yield _CANONICAL(value)
        return
    if isinstance(value, dict):
        yield "{"
        for position, (key, item) in enumerate(sorted(value.items())):
            yield ("," if position else "") + _CANONICAL(key) + ":"
            yield from canonical_parts(item, depth - 1)
        yield "}"
        return
    yield "["
    for position, item in enumerate(value):
        if position:
            yield ","
        yield from canonical_parts(item, depth - 1)
    yield "]"


def _entry(artifact: Artifact, paths: list[str], checksum: bool) -> dict[str, Any]:
    return {
        "checksum": artifact.checksum if checksum else None,
        "depends_on": [{"identity": identity, "kind": kind} for kind, identity in artifact.depends_on],
        "files": paths,
        "identity": artifact.identity,
        "kind": artifact.kind,
        "name": artifact.name,
        "ownership": artifact.ownership,
        "provider": artifact.provider,
        "spec": artifact.spec,
    }


def _path_collision(path: str, first: Artifact, second: Artifact) -> Diagnostic:
    return Diagnostic(
        Codes.E111_NAME_COLLISION,
        f"'{first.name}' ({first.kind}) and '{second.name}' ({second.kind}) would both be written to '{path}'.",
        "Rename one of them; output file names must differ in more than letter case.",
        details={"path": path},
    )
