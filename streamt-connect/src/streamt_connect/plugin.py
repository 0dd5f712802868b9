"""streamt plugin: Kafka Connect sink connectors.

Registered through the ``streamt`` entry-point group. Compilation, observation,
planning and deployment arrive in later releases; until then the plugin
declares what it will provide with ``implemented=False`` so that core reports
``E904_NOT_IMPLEMENTED`` instead of pretending.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Materialization


@hookimpl
def streamt_materializations() -> list[Any]:
    return [
        Materialization(
            name="sink",
            description="Kafka Connect sink connector",
            extra="connect",
            runtime_sections=("runtime.connect",),
            implemented=False,
        ),
    ]
