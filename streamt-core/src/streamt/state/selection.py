"""Choosing the deployment-state backend a project configured.

Selection comes only from ``deployment_state.backend`` in configuration, never
from a flag, and there is no fallback: a configured backend that is missing,
unimplemented or unusable is an error, never a silent switch to local state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamt import kinds
from streamt.capabilities import StateBackend
from streamt.errors import Codes, StreamtError
from streamt.plugins import Plugins, get_plugins

# What a command needs the backend for. Backends may refuse a purpose: the
# PostgreSQL backend serves ``write`` only through the v2 writer role.
READ = "read"
WRITE = "write"
ADMIN = "admin"


def available_backends(plugins: Plugins | None = None) -> kinds.KindTable[StateBackend]:
    """Installed backends by name, under the one precedence rule of ``streamt.kinds``."""
    return kinds.state_backends(plugins or get_plugins())


def open_state_backend(project: Any, project_dir: Path, purpose: str, plugins: Plugins | None = None) -> Any:
    """The configured backend, constructed for ``purpose`` (no connection is made here)."""
    plugins = plugins or get_plugins()
    name = project.deployment_state.backend
    table = available_backends(plugins)
    table.require([name])
    backend = table.get(name)
    if backend is None:
        raise StreamtError(
            Codes.E420_STATE_BACKEND_UNAVAILABLE,
            f"The deployment-state backend '{name}' is not installed.",
            kinds.install_hint(name, plugins, kinds.STATE_BACKEND),
        )
    if not backend.implemented or backend.factory is None:
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"The deployment-state backend '{name}' is not implemented in this release.",
            "Use deployment_state.backend: local, or upgrade the plugin that provides it.",
        )
    return backend.factory(project=project, project_dir=Path(project_dir), purpose=purpose)


def is_local(backend: Any) -> bool:
    return getattr(backend, "name", None) == "local"
