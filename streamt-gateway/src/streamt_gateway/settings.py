"""``gateway:`` of a model: the virtual-topic settings, this plugin's model section (dsl.md §9.7).

Core checks the keys, structures them into ``GatewayConfig`` while loading the project and keeps
the value in ``model.sections``; ``gateway_settings`` reads it back. The shorthands
(``virtual_topic: true`` / ``: <name>``, ``advanced.virtual_topic: true``) are folded first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import ConfigSection, model_section

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Model

NAME = "gateway"


@attrs.frozen(kw_only=True)
class VirtualTopic:
    name: str | None = None
    compression: str | None = None


@attrs.frozen(kw_only=True)
class GatewayConfig:
    virtual_topic: VirtualTopic | None = None


KEYS: dict[str, Any] = {"virtual_topic": {"name": None, "compression": None}}


def gateway_settings(model: Model) -> GatewayConfig | None:
    """The model's ``gateway:`` settings, or ``None`` when it sets none."""
    return model_section(model, NAME, GatewayConfig)


SECTION = ConfigSection(
    path=f"model.{NAME}", model=GatewayConfig, keys=KEYS, extra="gateway", description="the virtual-topic settings."
)
