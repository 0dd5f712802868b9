"""``flink:`` and ``flink_cluster:`` of a model, ``format:`` of a source: this plugin's sections (dsl.md §9.3).

Core checks their keys, structures them into ``FlinkConfig`` / a cluster name while loading the
project (types are ``E501`` at their position) and keeps them in ``model.sections``; they are
accepted under ``advanced`` and, as the project's defaults, under ``defaults.models``. The values
(upgrade modes, NOT NULL enforcers, restart strategies) are checked by ``streamt_flink.validation``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from streamt.sdk import ConfigSection, model_section

if TYPE_CHECKING:  # the project model is loaded by then; naming it must not load it
    from streamt.sdk import Model, Project, Source

NAME = "flink"
CLUSTER = "flink_cluster"
FORMAT = "format"


@attrs.frozen(kw_only=True)
class SourceFormat:
    """How a reader decodes the topic's records; ``ignore_parse_errors`` skips undecodable ones."""

    ignore_parse_errors: bool | None = None


@attrs.frozen(kw_only=True)
class FlinkSinkConfig:
    not_null_enforcer: str | None = None


@attrs.frozen(kw_only=True)
class RestartStrategy:
    type: str | None = None
    attempts: int | None = None
    delay_ms: int | None = None


@attrs.frozen(kw_only=True)
class FlinkConfig:
    """The Flink job of a model.

    * ``parallelism`` — the job's parallelism; ``checkpoint_interval_ms`` — how often it checkpoints.
    * ``state_backend`` — the state backend; ``state_ttl_ms`` — how long idle state is kept.
    * ``upgrade_mode`` — how a running job whose SQL changed may be replaced: ``blocked`` (default),
      ``savepoint`` or ``stateless``.
    * ``ignore_unclaimed_state`` — restore a savepoint even when some of its state maps to no operator.
    """

    parallelism: int | None = None
    checkpoint_interval_ms: int | None = None
    state_backend: str | None = None
    state_ttl_ms: int | None = None
    # How streamt may replace a running job whose SQL changed: blocked (default), savepoint,
    # last-state or stateless (streamt-flink validates the value and documents the modes).
    upgrade_mode: str | None = None
    # Restore a savepoint even when some of its state maps to no operator of the new job.
    ignore_unclaimed_state: bool | None = None
    # What the job's sink does with a NULL in a NOT NULL column (error | drop), and how the job
    # restarts after a failure (fixed-delay with attempts); streamt-flink validates and compiles them.
    sink: FlinkSinkConfig | None = None
    restart_strategy: RestartStrategy | None = None


KEYS: dict[str, Any] = {
    **dict.fromkeys(("parallelism", "checkpoint_interval_ms", "state_backend", "state_ttl_ms")),
    **dict.fromkeys(("upgrade_mode", "ignore_unclaimed_state")),
    "sink": {"not_null_enforcer": None},
    "restart_strategy": dict.fromkeys(("type", "attempts", "delay_ms")),
}
_DESCRIPTION = "Flink job settings and the named cluster"


def flink_settings(model: Model) -> FlinkConfig | None:
    """The model's ``flink:`` settings, or ``None`` when it sets none."""
    return model_section(model, NAME, FlinkConfig)


def default_settings(project: Project) -> FlinkConfig | None:
    """``defaults.models.flink``: the settings of a model that does not set them, or ``None``."""
    return model_section(project.defaults.models, NAME, FlinkConfig)


def flink_cluster(model: Model) -> str | None:
    """The named Flink cluster the model's job runs on, or ``None`` for the default."""
    return model_section(model, CLUSTER, str)


def default_cluster(project: Project) -> str | None:
    """``defaults.models.flink_cluster``, or ``None``."""
    return model_section(project.defaults.models, CLUSTER, str)


def source_format(source: Source) -> SourceFormat | None:
    """How a job reading ``source`` decodes its records (``format:``), or ``None`` when not written."""
    return model_section(source, FORMAT, SourceFormat)


SECTIONS = (
    ConfigSection(
        path=f"model.{NAME}",
        model=FlinkConfig,
        keys=KEYS,
        extra="flink",
        description=_DESCRIPTION,
        shown=True,
        defaults=True,
    ),
    ConfigSection(
        path=f"model.{CLUSTER}", model=str, keys=None, extra="flink", description=_DESCRIPTION, defaults=True
    ),
    ConfigSection(
        path=f"source.{FORMAT}",
        model=SourceFormat,
        keys={"ignore_parse_errors": None},
        extra="flink",
        description="how jobs decode its records (`ignore_parse_errors`), or `None`.",
    ),
)
