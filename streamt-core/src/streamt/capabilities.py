"""Small value types that plugins return from capability hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs


@attrs.frozen
class Materialization:
    """A materialization (or executor) a plugin compiles.

    ``extra`` is the name of the ``streamt`` extra that installs the plugin, so
    that core can say ``pip install 'streamt[<extra>]'`` when it is missing.
    """

    name: str
    description: str
    extra: str
    runtime_sections: tuple[str, ...] = ()
    implemented: bool = True


@attrs.frozen
class Exporter:
    """An exporter mounted as ``streamt <group> <name>``.

    ``command_factory`` returns a ``click.Command`` named ``name``; it is called
    once when the CLI is assembled, so it must be cheap.
    """

    name: str
    group: str
    description: str
    command_factory: Callable[[], Any]


# The extras of the meta-distribution, by the capability they bring. Core uses
# it to name the install command when nothing installed provides a capability.
KNOWN_EXTRAS: dict[str, str] = {
    "topic": "kafka",
    "schema": "kafka",
    "flink": "flink",
    "sink": "connect",
    "virtual_topic": "gateway",
    "kafka_streams": "kstreams",
    "postgres": "postgres",
    "strimzi": "exporters",
    "odcs": "exporters",
    "datahub": "exporters",
    "backstage": "exporters",
    "openlineage": "exporters",
    "asyncapi": "exporters",
}


def install_hint(capability: str) -> str:
    extra = KNOWN_EXTRAS.get(capability)
    if extra is None:
        return "Install a plugin that provides it; `streamt plugins` lists what is installed."
    return f"Install it with: pip install 'streamt[{extra}]'"


@attrs.frozen
class StateBackend:
    """A named deployment-state backend (``deployment_state.backend``).

    ``factory(project=..., project_dir=..., purpose=...)`` returns the backend
    object for one state address; it must not connect anywhere yet. The
    object follows the protocol of ``streamt.state.local.LocalStateBackend``:
    ``name``, ``address``, ``status()``, ``read_state()``, ``read_control()``,
    ``operation_lock()``, ``require_clear()``, ``begin_operation()``,
    ``record_progress()``, ``record_progress_many()``,
    ``mark_recovery_required()``, ``commit()``; for reviewed recovery also
    ``read_recovery()``, ``verify_lock()``, ``commit_recovery()``
    (docs/state-recovery.md).
    ``purpose`` is ``read``, ``write`` or ``admin`` (``streamt.state.selection``).
    """

    name: str
    description: str
    implemented: bool = True
    factory: Callable[..., Any] | None = None
