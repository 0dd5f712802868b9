"""The recovery-evidence document: exact, checksummed, created once (0600), never overwritten."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from streamt import strictjson
from streamt.artifacts import canonical_json, sha256_checksum
from streamt.errors import Codes, StreamtError

FORMAT = "streamt.recovery-evidence"
VERSION = 1
RESOLUTIONS = ("observed", "rolled_back", "abandoned_before_mutation")
_CHECKSUM = re.compile(r"^sha256:[0-9a-f]{64}$")


def invalid(message: str, suggestion: str = "Do not repair the plan in place; create a new one.") -> StreamtError:
    return StreamtError(Codes.E408_PLAN_FILE_INVALID, message, suggestion)


def check_confirmations(operation_id: str, resolution: str, checksum: str) -> None:
    """Syntax only, before the plan is read or anything is constructed."""
    try:
        canonical = str(uuid.UUID(operation_id))
    except ValueError:
        canonical = ""
    if canonical != operation_id:
        raise invalid("--confirm-operation-id is not a canonical lowercase UUID.")
    if resolution not in RESOLUTIONS:
        raise invalid(f"--confirm-resolution must be one of {', '.join(RESOLUTIONS)}.")
    if not _CHECKSUM.match(checksum):
        raise invalid("--confirm-evidence-checksum must be 'sha256:' and 64 lowercase hex digits.")


def seal(body: dict[str, Any]) -> dict[str, Any]:
    document = {"format": FORMAT, "version": VERSION, **body}
    document["evidence_checksum"] = sha256_checksum(canonical_json(document))
    return document


def write(path: Path, document: dict[str, Any]) -> None:
    from streamt.fsutil import create_exclusive

    if path.is_symlink() or path.exists():
        raise invalid(f"{path.name} already exists; evidence files are never overwritten.", "Choose a new --out path.")
    try:
        create_exclusive(path, json.dumps(document, indent=2, sort_keys=True).encode("utf-8") + b"\n", mode=0o600)
    except FileExistsError:
        raise invalid(
            f"{path.name} already exists; evidence files are never overwritten.", "Choose a new --out path."
        ) from None
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"The evidence file could not be created ({exc.strerror or type(exc).__name__}).",
            "Check that the directory exists and is writable.",
        ) from None


def read(path: Path) -> dict[str, Any]:
    try:
        document = strictjson.loads(path.read_bytes())
    except (OSError, ValueError):
        raise invalid("The recovery plan cannot be read as JSON.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT or document.get("version") != VERSION:
        raise invalid("The file is not a supported recovery plan.")
    body = {k: v for k, v in document.items() if k != "evidence_checksum"}
    if document.get("evidence_checksum") != sha256_checksum(canonical_json(body)):
        raise invalid("The recovery plan was modified after it was created (checksum mismatch).")
    if document.get("resolution") not in RESOLUTIONS:
        raise invalid("The recovery plan names an unsupported resolution.")
    return document
