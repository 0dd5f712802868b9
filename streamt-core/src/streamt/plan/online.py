"""Online planning: ownership state + live observations -> the one plan engine.

Shared by ``plan``, ``diff``, ``apply`` and ``status``. Kinds that cannot be
observed fail closed (``require_observers``) before any state is read or any
client is built; the state reference binds the exact ownership state the
plan was made from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamt.artifacts import Artifact
from streamt.compile import CompiledProject
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.kinds import KindTable
from streamt.plan.engine import plan_project
from streamt.plan.model import Plan, StateReference
from streamt.plan.observe import observe, observers_by_kind, require_observers
from streamt.plan.tombstones import require_shared_state

if TYPE_CHECKING:
    from streamt.plugins import Plugins
    from streamt.sdk.protocols import Observer


def local_state_warning(backend: Any) -> tuple[Diagnostic, ...]:
    from streamt.state.selection import is_local

    if not is_local(backend):
        return ()
    return (
        Diagnostic(
            Codes.W106_LOCAL_STATE_ONLY,
            "Ownership state is kept in local files (.streamt/state/): safe for one user on one machine only.",
            "Shared CI should set deployment_state.backend: postgres.",
        ),
    )


def open_backend(project: Any, purpose: str) -> Any:
    """The project's configured state backend for ``purpose`` (``READ``, ``WRITE``, ``ADMIN``)."""
    from streamt.state.selection import open_state_backend

    return open_state_backend(project, Path(project.root), purpose)


def check_observable(
    project: Any, artifacts: tuple[Artifact, ...], plugins: Plugins | None = None
) -> KindTable[Observer]:
    """The observers for ``artifacts``, or ``E903``/``E904`` before anything is contacted."""
    plugins = plugins or _plugins()
    observers = observers_by_kind(plugins, project.runtime)
    require_observers(artifacts, observers)
    return observers


def plan_online(
    project: Any,
    compiled: CompiledProject,
    backend: Any,
    artifacts: tuple[Artifact, ...] | None = None,
    plugins: Plugins | None = None,
) -> tuple[Plan, dict[str, Any]]:
    """The live plan and the backend's safe ``operation_status``."""
    plugins = plugins or _plugins()
    targets = compiled.artifacts if artifacts is None else artifacts
    require_shared_state(targets, backend, plugins)
    observers = check_observable(project, targets, plugins)
    status = backend.status()
    state = backend.read_state()
    if (state.checksum if state else None) != status["checksum"]:
        raise StreamtError(
            Codes.E424_STATE_CONFLICT,
            "The ownership state changed while it was being read.",
            "Another streamt operation is committing; re-run the command.",
        )
    observations = observe(targets, observers)
    plan = plan_project(
        project,
        compiled,
        observations=observations,
        state=state,
        state_reference=StateReference.from_status(status),
        artifacts=artifacts,
        plugins=plugins,
    )
    return plan, status["operation_status"]


def _plugins() -> Plugins:
    from streamt.plugins import get_plugins

    return get_plugins()
