"""streamt plugin: Flink SQL jobs.

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
            name="flink",
            description="Flink SQL job writing to a Kafka topic",
            extra="flink",
            runtime_sections=("runtime.flink",),
            implemented=False,
        ),
    ]
