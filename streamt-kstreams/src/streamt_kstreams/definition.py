"""What a running runner container runs: its plan file, image, volume and generation, read from the engine.

A predicate-only replacement is decided from the definition the old container really runs, not from
memory: ``/etc/streamt/plan.json`` is read back from the container and must hash to the checksum
label the container was created with (else the definition is unknown and the change stays blocked).
"""

from __future__ import annotations

import io
import json
import tarfile
from typing import Any

from streamt.sdk import canonical_json, sha256_checksum

from streamt_kstreams import engine

LABEL_GENERATION = "io.streamt.generation"
PLAN_PATH = "/etc/streamt/plan.json"


def generation_of(labels: dict[str, str] | None) -> int:
    """The generation label (a runner created before generations existed is generation 1)."""
    raw = (labels or {}).get(LABEL_GENERATION, "1")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 0


def read_plan(client: Any, container_id: str) -> dict[str, Any] | None:
    """The plan file inside the container, ``None`` when it cannot be read as one JSON object."""
    try:
        raw = engine.get_archive(client, container_id, PLAN_PATH)
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            member = tar.extractfile(tar.getmembers()[0])
            document = json.loads(member.read()) if member is not None else None
    except Exception:
        return None
    return document if isinstance(document, dict) else None


def running_definition(client: Any, container_id: str, checksum: str | None) -> dict[str, Any]:
    """``{spec, verified, image, volumes, generation}`` of one container.

    ``verified``: the plan file read back hashes to the container's checksum label.
    """
    try:
        inspected = client.api.inspect_container(container_id)
    except Exception:
        inspected = {}
    spec = read_plan(client, container_id)
    mounts = sorted(
        str(m.get("Name")) for m in inspected.get("Mounts") or () if m.get("Type") == "volume" and m.get("Name")
    )
    return {
        "generation": generation_of((inspected.get("Config") or {}).get("Labels")),
        "image": str(inspected.get("Image") or ""),
        "spec": spec,
        "verified": spec is not None and checksum is not None and sha256_checksum(canonical_json(spec)) == checksum,
        "volumes": mounts,
    }
