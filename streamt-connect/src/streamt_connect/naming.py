"""Who a connector is: its project-scoped name and the owner marker its config carries.

Connector names are global to a Connect cluster. A managed sink is therefore named
``<project>.<env>.<model>``: Connect cannot serve a name holding ``/`` (Jetty refuses the
encoded ``%2F``), so the parts are joined by ``.``, which neither an environment nor a model name
can hold; the project part keeps ``[A-Za-z0-9_-]`` and ``.`` and writes ``_`` for anything else
(``%`` or ``\\`` would also be refused as ambiguous paths). A name longer than ``MAX_NAME``
characters keeps its first part and ends with ``-`` and 12 hex digits of the full name's SHA-256,
so it stays deterministic and distinct. Adopted and external sinks keep the model name: that is
the name the connector already has.

The config of a managed connector also carries ``streamt.owner: <project>/<env>`` (Connect and
the connectors streamt knows ignore keys they do not define): when a connector of this name
exists without an ownership record, the plan names the project and environment that made it.

A connector deployed before scoped names runs under the model name (the *legacy* name); only an
ownership record of this project naming it makes the planner look at it, and a reviewed apply
renames it, carrying its consumer offsets over (``deployers``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

OWNER_KEY = "streamt.owner"
MAX_NAME = 200
_DIGEST = 12
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def scoped_name(project: str, env: str, model: str) -> str:
    name = f"{_UNSAFE.sub('_', project)}.{env}.{model}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:_DIGEST]
    return f"{name[: MAX_NAME - _DIGEST - 1]}-{digest}"


def owner_marker(project: str, env: str) -> str:
    return f"{project}/{env}"


def connector_name(project: Any, model: Any) -> str:
    """The live name of a sink model's connector: scoped when streamt creates it, else the model name."""
    if model.ownership.mode != "managed":
        return str(model.name)
    return scoped_name(str(project.name), str(project.env), str(model.name))


def owner_of(config: Mapping[str, Any]) -> dict[str, str] | None:
    """``{project, environment}`` from a live config's owner marker; ``None`` without a well-formed one."""
    marker = config.get(OWNER_KEY)
    if not isinstance(marker, str) or "/" not in marker:
        return None
    project, env = marker.rsplit("/", 1)
    return {"project": project, "environment": env} if project and env else None
