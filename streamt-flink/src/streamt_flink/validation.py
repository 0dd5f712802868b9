"""Flink-specific checks (``streamt_validate``): ML functions, state TTL, upgrade modes, the sink's
NOT NULL enforcer and the restart strategy, nullable upsert keys (``W124``), SQL Gateway address.

The "runtime.flink missing" checks (E202, E207) are ``config.check_declaration``; these look at
what only a Flink compiler knows: which queries are stateful and which functions they call. They
cover every model a Flink job runs: ``flink`` models and ``topic`` models with SQL
(``<model>_processor`` jobs).

Speed: validate runs on every model of large projects, so sqlparse is reached only when a cheap
regex over the text says the answer could be yes (``maybe_ml``, ``maybe_stateful``), and the TTL
verdict needs the query's shape only when no TTL is set.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Codes, Diagnostic, Notice, StreamtError

from streamt_flink.config import flink_runtime
from streamt_flink.job import FIXED_DELAY, NOT_NULL_ENFORCERS, UPGRADE_MODES
from streamt_flink.nullable_keys import nullable_keys
from streamt_flink.placement import runs_on_flink
from streamt_flink.query import analyze, maybe_ml, maybe_stateful
from streamt_flink.relations import model_query
from streamt_flink.settings import default_settings, flink_settings

MIN_SENSIBLE_TTL_MS = 1000


def flink_models(project: Any) -> list[Any]:
    """Every model with SQL that a Flink job runs."""
    return [m for m in project.models if m.sql and runs_on_flink(m)]


def check(project: Any) -> list[Any]:
    found: list[Any] = []
    flink = flink_runtime(project.runtime)
    has_confluent = flink is not None and any(c.type == "confluent" for c in flink.clusters.values())
    for model in flink_models(project):
        where = project.locations.get(("model", model.name))
        used = _ml_calls(model) if not has_confluent else ""
        if used:
            found.append(
                Diagnostic(
                    Codes.E203_CONFLUENT_FLINK_REQUIRED,
                    f"Model '{model.name}' calls {used}, which only Confluent Cloud Flink provides",
                    "Add a runtime.flink cluster with 'type: confluent' and point the model at it.",
                    where,
                )
            )
        settings = flink_settings(model)
        mode = settings.upgrade_mode if settings else None
        if mode is not None and mode not in UPGRADE_MODES:
            found.append(
                Diagnostic(
                    Codes.E501_PARSE_ERROR,
                    f"Model '{model.name}' sets flink.upgrade_mode to {mode!r}",
                    f"Use one of: {', '.join(UPGRADE_MODES)} (docs/providers/flink.md, upgrade modes).",
                    where,
                )
            )
        found += _prevention(model, where)
        found += nullable_keys(project, model)
        ttl = settings.state_ttl_ms if settings else None
        if ttl is not None and ttl <= 0:
            found.append(
                Diagnostic(
                    Codes.E301_INVALID_STATE_TTL,
                    f"Model '{model.name}' sets state_ttl_ms to {ttl}; it must be a positive number of milliseconds",
                    "Set advanced.flink.state_ttl_ms to a positive value, or remove it.",
                    where,
                )
            )
        elif ttl is None and _unbounded_state(model):
            found.append(
                Diagnostic(
                    Codes.W101_STATE_TTL_RECOMMENDED,
                    f"Model '{model.name}' keeps unbounded state (stateful query without a window) and sets no TTL",
                    "Set advanced.flink.state_ttl_ms so that idle state expires.",
                    where,
                )
            )
    found += [notice for model in project.models if (notice := _short_ttl(model)) is not None]
    defaults = default_settings(project)
    if defaults is not None and defaults.upgrade_mode is not None and defaults.upgrade_mode not in UPGRADE_MODES:
        found.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"defaults.models.flink.upgrade_mode is {defaults.upgrade_mode!r}",
                f"Use one of: {', '.join(UPGRADE_MODES)} (docs/providers/flink.md, upgrade modes).",
            )
        )
    return found


def _short_ttl(model: Any) -> Notice | None:
    """A positive ``flink.state_ttl_ms`` under a second, on any model that writes one (dsl.md §17)."""
    settings = flink_settings(model)
    ttl = settings.state_ttl_ms if settings else None
    if ttl is None or not 0 < ttl < MIN_SENSIBLE_TTL_MS:
        return None
    message = f"Model '{model.name}': state_ttl_ms {ttl} is under one second"
    return Notice(code="STATE_TTL_TOO_SHORT", message=message, subject=model.name)


def _prevention(model: Any, where: str | None) -> list[Diagnostic]:
    """``flink.sink.not_null_enforcer`` and ``flink.restart_strategy`` take only what Flink does."""
    found = []
    flink = flink_settings(model)
    enforcer = flink.sink.not_null_enforcer if flink and flink.sink else None
    if enforcer is not None and enforcer not in NOT_NULL_ENFORCERS:
        found.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"Model '{model.name}' sets flink.sink.not_null_enforcer to {enforcer!r}",
                f"Use one of: {', '.join(NOT_NULL_ENFORCERS)} (docs/providers/flink.md, poison records).",
                where,
            )
        )
    restart = flink.restart_strategy if flink else None
    if restart is not None and (restart.type != FIXED_DELAY or not _positive(restart.attempts)):
        found.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"Model '{model.name}' sets flink.restart_strategy to type {restart.type!r} with attempts "
                f"{restart.attempts!r}",
                f"Use type: {FIXED_DELAY} with a positive number of attempts (and delay_ms), or leave it out "
                "for Flink's default.",
                where,
            )
        )
    return found


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _ml_calls(model: Any) -> str:
    """The ML functions the model calls, comma-separated; empty when none."""
    if not maybe_ml(model.sql):
        return ""
    return ", ".join(sorted(analyze(model_query(model)).functions & {"ML_PREDICT", "ML_EVALUATE"}))


def _unbounded_state(model: Any) -> bool:
    return maybe_stateful(model.sql) and analyze(model_query(model)).unbounded_state


def sql_gateway_url(project: Any, cluster: str | None) -> str:
    """The SQL Gateway address a job is submitted to; missing -> ``E206`` (raised at plan/apply time)."""
    flink = flink_runtime(project.runtime)
    config = flink.clusters.get(cluster) if flink is not None and cluster else None
    if config is None or not config.sql_gateway_url:
        raise StreamtError(
            Codes.E206_SQL_GATEWAY_NOT_CONFIGURED,
            f"Flink cluster '{cluster}' has no sql_gateway_url; streamt submits Flink SQL through the SQL Gateway",
            f"Set runtime.flink.clusters.{cluster}.sql_gateway_url.",
        )
    return str(config.sql_gateway_url)
