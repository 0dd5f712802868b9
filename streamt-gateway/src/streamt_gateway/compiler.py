"""One virtual_topic model -> one ``gateway_rule`` artifact, plus the checks compile depends on."""

from __future__ import annotations

from typing import Any

from streamt.sdk import KIND_GATEWAY_RULE, KIND_TOPIC, Artifact, Codes, Diagnostic, StreamtError

from streamt_gateway.codes import MASK_NOT_APPLICABLE
from streamt_gateway.rule import MASK_RULES, gateway_rule, unsupported_operators, where_clause
from streamt_gateway.settings import gateway_settings

PROVIDER = "streamt-gateway"


def upstreams(model: Any) -> tuple[Any, ...]:
    return tuple(model.dependencies or model.from_)


def alias_name(model: Any) -> str:
    """``gateway.virtual_topic.name`` > ``advanced.topic.name`` > model name (dsl.md section 9.7)."""
    gateway = gateway_settings(model)
    virtual = gateway.virtual_topic if gateway else None
    return (virtual.name if virtual else None) or model.topic.name or model.name


def physical_topic(project: Any, ref: Any, seen: frozenset[str] = frozenset()) -> str | None:
    """The real topic behind a reference; an alias cannot target another alias, so follow it."""
    if ref.kind == "model":
        upstream = project.model(ref.name)
        if upstream is not None and upstream.materialized == "virtual_topic" and upstream.name not in seen:
            inner = upstreams(upstream)
            return physical_topic(project, inner[0], seen | {upstream.name}) if len(inner) == 1 else None
    return project.topic_of(ref)


def upstream_problem(model: Any, location: str | None = None) -> Diagnostic | None:
    count = len(upstreams(model))
    if count == 1:
        return None
    what = "no upstream" if count == 0 else f"{count} upstreams"
    return Diagnostic(
        Codes.E501_PARSE_ERROR,
        f"Virtual topic '{model.name}' has {what}; a Gateway alias reads exactly one topic",
        "Read exactly one source() or ref(), or materialize the model as flink.",
        location,
    )


def filter_warning(model: Any, location: str | None = None) -> Diagnostic | None:
    where = where_clause(model.sql) if model.sql else None
    found = unsupported_operators(where) if where else []
    if not found:
        return None
    return Diagnostic(
        Codes.W201_SQL_PARSE_WARNING,
        f"Virtual topic '{model.name}' filters with {', '.join(found)}, which Gateway's SQL filter does not support",
        "Gateway filters accept only = <> > < >= <= REGEXP joined by AND; materialize the model as flink otherwise.",
        location,
    )


def mask_problems(project: Any, model: Any, location: str | None = None) -> list[Diagnostic]:
    """What plan would block or Gateway would not enforce, said at validate: a mask method without a
    Gateway rule (``W131``: the plan keeps it as a reviewable blocker, so compile and review still work), a
    mask on a column the upstream does not produce (``E436``: the data would flow unmasked under its new
    name). An upstream without declared columns cannot be checked and is left alone."""
    masks = [p for p in (model.security.policies if model.security else ()) if p.kind == "mask" and p.column]
    found = []
    for policy in masks:
        if policy.method not in MASK_RULES:
            found.append(
                Diagnostic(
                    MASK_NOT_APPLICABLE,
                    f"Virtual topic '{model.name}' masks '{policy.column}' with method '{policy.method}', which no "
                    f"Gateway masking rule implements (only {', '.join(sorted(MASK_RULES))}): plan will block it "
                    "(gateway_unsupported_mask) and apply refuses it",
                    "Use method: redact, or materialize the model as flink to mask it in SQL.",
                    location,
                )
            )
    produced = _upstream_columns(project, model)
    for policy in masks:
        if produced is not None and policy.column not in produced:
            found.append(
                Diagnostic(
                    Codes.E436_DECLARATION_NOT_APPLICABLE,
                    f"Virtual topic '{model.name}' masks column '{policy.column}', which its upstream does not produce",
                    f"Mask one of the upstream's columns ({', '.join(sorted(produced))}), or drop the policy.",
                    location,
                )
            )
    return found


def _upstream_columns(project: Any, model: Any) -> set[str] | None:
    refs = upstreams(model)
    if len(refs) != 1:
        return None  # upstream_problem reports it
    ref = refs[0]
    declaration = project.model(ref.name) if ref.kind == "model" else project.source(ref.name)
    columns = getattr(declaration, "columns", None) if declaration is not None else None
    return {c.name for c in columns} if columns else None


def compile_rule(project: Any, model: Any) -> Artifact:
    problem = upstream_problem(model)
    if problem is not None:
        raise StreamtError.from_diagnostics([problem])
    physical = physical_topic(project, upstreams(model)[0])
    if physical is None:
        raise StreamtError(
            Codes.E102_MODEL_NOT_FOUND,
            f"Virtual topic '{model.name}' reads '{upstreams(model)[0].name}', which has no physical topic",
            "Point the virtual topic at a source or at a model that writes a topic.",
        )
    masks = []
    if model.security is not None:
        masks = [(p.column, p.method, p.for_roles) for p in model.security.policies if p.kind == "mask" and p.column]
    spec = gateway_rule(model.name, alias_name(model), physical, where_clause(model.sql) if model.sql else None, masks)
    return Artifact(
        kind=KIND_GATEWAY_RULE,
        name=model.name,
        identity=str(spec["virtualTopic"]),
        spec=spec,
        ownership=model.ownership.mode,
        provider=PROVIDER,
        depends_on=((KIND_TOPIC, physical),),
    )
