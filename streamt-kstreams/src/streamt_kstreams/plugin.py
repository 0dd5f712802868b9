"""streamt plugin: the packaged Kafka Streams runner.

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
            name="kafka_streams",
            description="Kafka Streams runner executing a topic model's SQL",
            extra="kstreams",
            runtime_sections=("runtime.kafka_streams",),
            implemented=False,
        ),
    ]


@hookimpl
def streamt_commands(cli: Any) -> None:
    from streamt.pending import pending_command

    runtime = cli.add_group("runtime", "Build and inspect packaged runtimes.")
    runtime.add_command(pending_command("runtime build", "streamt-kstreams", "Build the Kafka Streams runner image"))
    state = cli.add_group("state", "Inspect and administer deployment state.")
    for name, help_text in (
        ("runner-status", "Inspect one Kafka Streams replacement"),
        ("resume", "Continue one interrupted Kafka Streams replacement"),
    ):
        state.add_command(pending_command(f"state {name}", "streamt-kstreams", help_text))
