"""``sink:`` and ``connect_cluster:`` of a model: this plugin's model sections (dsl.md §9.5).

Core checks the keys, structures them into ``SinkConfig`` / a cluster name while loading the
project and keeps them in ``model.sections``; ``sink_settings`` and ``connect_cluster`` read them
back. ``sink.config`` keeps its ``${VAR}`` placeholders: the deployer resolves them at apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import ConfigSection, model_section

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Model

NAME = "sink"
CLUSTER = "connect_cluster"


@attrs.frozen(kw_only=True)
class SinkConfig:
    """The Kafka Connect connector of a sink model.

    * ``connector`` — the connector: a name such as ``debezium-jdbc-sink`` or its class.
    * ``config`` — its settings (``${VAR}`` resolved at apply).
    """

    connector: str | None = None
    config: dict[str, Any] = attrs.field(factory=dict)


KEYS: dict[str, Any] = {"connector": None, "config": None}
_DESCRIPTION = "the connector settings of a sink"


def sink_settings(model: Model) -> SinkConfig | None:
    """The model's ``sink:`` settings (``connector:`` folded in), or ``None`` when it sets none."""
    return model_section(model, NAME, SinkConfig)


def connect_cluster(model: Model) -> str | None:
    """The named Connect cluster of the model's connector, or ``None`` for the default."""
    return model_section(model, CLUSTER, str)


SECTIONS = (
    ConfigSection(
        path=f"model.{NAME}",
        model=SinkConfig,
        keys=KEYS,
        extra="connect",
        verbatim=("config",),
        description=_DESCRIPTION,
    ),
    ConfigSection(path=f"model.{CLUSTER}", model=str, keys=None, extra="connect", description=_DESCRIPTION),
)
