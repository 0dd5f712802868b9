"""The reviewed plan file, format version 5.

The file is canonical JSON (sorted keys, two-space indent) whose
``integrity.checksum`` is the SHA-256 of the canonical bytes of every other
field: actions with their evidence, safety blockers, the manifest checksum,
the environment fingerprint and the ownership-state reference. The checksum
detects accidental or unreviewed edits; it is not a signature.

An offline plan records ``offline: true`` and ``state: null``: it can be
read and reviewed, never used to authorize apply. ``live_evidence`` is
``null`` for it; an online plan names the kinds it observed live (each
action's evidence holds its observation).
Versions 1-4 are refused with regeneration guidance.

A plugin may extend the document with one field of its own
(``streamt_plan_file_extensions``), which gives the file that extension's
format version: the exact binding of one reviewed replacement, written only
by ``plan --out`` when that replacement is the sole change of the full
project, and run only by ``apply --plan``. Format 6 is the Kafka Streams
runner's (``kafka_streams_replacement``, streamt-kstreams); a format-5 file
never carries an extension field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from streamt import kinds, strictjson
from streamt.artifacts import canonical_json, sha256_checksum
from streamt.errors import Codes, StreamtError
from streamt.fsutil import atomic_write
from streamt.plan.model import Plan
from streamt.plugins import get_plugins

FORMAT = "streamt.reviewed-plan"
FORMAT_VERSION = 5
MAX_BYTES = 64 * 1024 * 1024
_REQUIRED = {
    "actions": list,
    "environment": str,
    "environment_fingerprint": str,
    "format": str,
    "format_version": int,
    "integrity": dict,
    "manifest_checksum": str,
    "offline": bool,
    "project": str,
    "safety_blockers": list,
}


def extensions() -> dict[str, Any]:
    """Plan-file field -> the installed plugin's ``PlanFileExtension``."""
    return dict(kinds.plan_file_extensions(get_plugins()))


def extension_for(kind: str) -> Any:
    """The extension that binds a reviewed replacement of ``kind`` artifacts, or ``None``."""
    return next((e for e in extensions().values() if kind in e.kinds), None)


def plan_document(plan: Plan, extension: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The format-5 document, or the extension's format when ``extension`` (field, binding) is given."""
    body: dict[str, Any] = {
        "actions": [dict(action.to_json(), position=i) for i, action in enumerate(plan.actions)],
        "counts": plan.counts,
        "environment": plan.environment,
        "environment_fingerprint": plan.environment_fingerprint,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "is_apply_blocked": plan.is_apply_blocked,
        "live_evidence": None if plan.offline else {"observed_kinds": list(plan.observed_kinds)},
        "manifest_checksum": plan.manifest_checksum,
        "offline": plan.offline,
        "ownership_requirements": [r.to_json() for r in plan.ownership_requirements],
        "project": plan.project,
        "safety_blockers": [b.to_json() for b in plan.safety_blockers],
        "state": plan.state.to_json() if plan.state else None,
    }
    if extension is not None:
        key, binding = extension
        body["format_version"] = extensions()[key].format_version
        body[key] = binding
    body["integrity"] = {"algorithm": "sha256", "checksum": integrity_checksum(body)}
    return body


def integrity_checksum(document: dict[str, Any]) -> str:
    return sha256_checksum(canonical_json({k: v for k, v in document.items() if k != "integrity"}))


def plan_bytes(plan: Plan, extension: tuple[str, dict[str, Any]] | None = None) -> bytes:
    document = plan_document(plan, extension)
    return (json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_plan_file(plan: Plan, path: Path, extension: tuple[str, dict[str, Any]] | None = None) -> None:
    try:
        atomic_write(Path(path), plan_bytes(plan, extension))
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"Could not write the plan file '{path}': {exc.strerror or type(exc).__name__}.",
            "Check that the directory exists and is writable.",
        ) from None


@attrs.frozen
class ReviewedPlan:
    """A plan file that parsed, is version 5 and passed its integrity check."""

    path: str
    document: dict[str, Any]

    @property
    def offline(self) -> bool:
        return bool(self.document["offline"]) or self.document.get("state") is None

    @property
    def actions(self) -> list[dict[str, Any]]:
        return list(self.document["actions"])

    @property
    def extension(self) -> tuple[str, dict[str, Any]] | None:
        """``(field, binding)`` of the plugin extension the file carries (``None`` for format 5)."""
        for key in extensions():
            value = self.document.get(key)
            if isinstance(value, dict):
                return key, dict(value)
        return None

    @property
    def replacement(self) -> dict[str, Any] | None:
        """The reviewed replacement binding of an extended file (format 6 ...), ``None`` for format 5."""
        found = self.extension
        return found[1] if found is not None else None


def read_plan_file(path: Path) -> ReviewedPlan:
    """Read and verify a plan file; every defect is ``E408_PLAN_FILE_INVALID``."""
    shown = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _invalid(shown, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(raw) > MAX_BYTES:
        raise _invalid(shown, "is larger than any plan streamt writes")
    try:
        document = strictjson.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        detail = f" ({exc})" if "duplicate key" in str(exc) else ""
        raise _invalid(shown, f"is not a JSON document{detail}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _invalid(shown, "is not a streamt reviewed plan")
    version = document.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and 1 <= version < FORMAT_VERSION:
        raise _invalid(shown, f"uses reviewed plan format {version}, which cannot authorize apply")
    extended = extensions()
    readable = sorted({FORMAT_VERSION, *(e.format_version for e in extended.values())})
    if version not in readable or isinstance(version, bool):
        shown_versions = " and ".join(", ".join(str(v) for v in readable).rsplit(", ", 1))
        raise _invalid(
            shown, f"uses unsupported reviewed plan format {version!r} (this release reads {shown_versions})"
        )
    for key, kind in _REQUIRED.items():
        if not isinstance(document.get(key), kind):
            raise _invalid(shown, f"lacks a valid '{key}' field")
    # An extended format exists only with its field, and no other format carries that field.
    for key, extension in extended.items():
        if (version == extension.format_version) != isinstance(document.get(key), dict) or (
            version != extension.format_version and key in document
        ):
            raise _invalid(shown, f"has a format {version} body that does not match its '{key}' field")
    integrity = document["integrity"]
    if integrity.get("algorithm") != "sha256" or integrity.get("checksum") != integrity_checksum(document):
        raise _invalid(shown, "fails its integrity check: it was modified after it was written")
    return ReviewedPlan(path=shown, document=document)


def require_authorizing(plan: ReviewedPlan) -> ReviewedPlan:
    """Refuse a plan that cannot authorize apply (offline, no ownership-state reference)."""
    if plan.offline:
        raise StreamtError(
            Codes.E408_PLAN_FILE_INVALID,
            f"'{plan.path}' is an offline plan (state: null) and cannot authorize apply.",
            "Create an online plan with live evidence: streamt plan --out PATH (without --offline).",
        )
    return plan


def _invalid(shown: str, problem: str) -> StreamtError:
    return StreamtError(
        Codes.E408_PLAN_FILE_INVALID,
        f"Plan file '{shown}' {problem}.",
        "Regenerate it with: streamt plan --out PATH, review it, then apply that file.",
    )
