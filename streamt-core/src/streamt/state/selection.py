"""Choosing the deployment-state backend a project configured.

Selection comes only from ``deployment_state.backend`` in configuration, never
from a flag, and there is no fallback: a configured backend that is missing,
unimplemented or unusable is an error, never a silent switch to local state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamt.capabilities import StateBackend, install_hint
from streamt.errors import Codes, StreamtError

# What a command needs the backend for. Backends may refuse a purpose: the
# PostgreSQL backend serves ``write`` only through the v2 writer role.
READ = "read"
WRITE = "write"
ADMIN = "admin"


def local_factory(*, project: Any, project_dir: Path, purpose: str) -> Any:
    from streamt.state.local import DEFAULT_NAMESPACE, LocalStateBackend

    del purpose  # the local backend serves every purpose the same way
    config = project.deployment_state
    return LocalStateBackend(
        project_dir=Path(project_dir),
        project=project.name,
        env=project.env,
        namespace=config.namespace or DEFAULT_NAMESPACE,
        lock_timeout_seconds=float(config.lock_timeout_seconds),
    )


def available_backends(plugins: Any = None) -> dict[str, StateBackend]:
    if plugins is None:
        from streamt.plugins import get_plugins

        plugins = get_plugins()
    table: dict[str, StateBackend] = {}
    for batch in plugins.hook.streamt_state_backends():
        for backend in batch or []:
            table.setdefault(backend.name, backend)
    return table


def open_state_backend(project: Any, project_dir: Path, purpose: str, plugins: Any = None) -> Any:
    """The configured backend, constructed for ``purpose`` (no connection is made here)."""
    name = project.deployment_state.backend
    backend = available_backends(plugins).get(name)
    if backend is None:
        raise StreamtError(
            Codes.E420_STATE_BACKEND_UNAVAILABLE,
            f"The deployment-state backend '{name}' is not installed.",
            install_hint(name),
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
