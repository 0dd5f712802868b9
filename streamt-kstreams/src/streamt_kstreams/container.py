"""The runner container as the engine creates it: the exact create arguments and the plan file archive.

Shared by the create deployer and the replacement coordinator, so that a candidate differs from a
first create only in its name, generation and operation labels.
"""

from __future__ import annotations

import io
import tarfile
from typing import Any

from streamt.sdk import Artifact, canonical_json

from streamt_kstreams.definition import LABEL_GENERATION
from streamt_kstreams.online import labels

STATE_DIR = "/var/lib/streamt"


def plan_archive(artifact: Artifact) -> bytes:
    """``streamt/plan.json`` as a tar stream for ``PUT /containers/<id>/archive?path=/etc``."""
    content = canonical_json(artifact.spec)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        folder = tarfile.TarInfo("streamt")
        folder.type, folder.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(folder)
        info = tarfile.TarInfo("streamt/plan.json")
        info.size, info.mode = len(content), 0o644
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def sasl_environment(runtime: Any) -> dict[str, str]:
    kafka = runtime.kafka
    if kafka.security_protocol != "SASL_PLAINTEXT" or not kafka.sasl_username:
        return {}
    return {
        "STREAMT_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "STREAMT_KAFKA_SASL_USERNAME": kafka.sasl_username,
        "STREAMT_KAFKA_SASL_PASSWORD": kafka.sasl_password or "",
    }


def create_options(runtime: Any, artifact: Artifact) -> dict[str, Any]:
    """The exact ``containers.create`` arguments (the plan file is copied in afterwards)."""
    spec = artifact.spec
    network = spec["runtime"].get("docker_network") or "host"
    options: dict[str, Any] = {
        "image": spec["runtime"]["image"],
        "name": spec["container_name"],
        "labels": {**labels(artifact), LABEL_GENERATION: "1"},
        "environment": sasl_environment(runtime),
        "volumes": {spec["state_volume"]: {"bind": STATE_DIR, "mode": "rw"}},
        "restart_policy": {"Name": "unless-stopped"},
        "detach": True,
    }
    if network == "host":
        options["network_mode"] = "host"
    else:
        options["network"] = network
    return options
