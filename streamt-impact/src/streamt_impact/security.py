"""Security changes of a source or model: what now reaches readers less protected than before.

A change is ``security`` when it removes or weakens a mask (a weaker method, or a mask that now
applies to fewer roles), changes a column's classification, widens access (``access`` toward
``public``, a ``group`` dropped or changed, a ``deny`` removed, an ``allow`` widened), or moves a
secret-named connector setting from a ``${NAME}`` placeholder into plain config. The opposite
directions (a mask added or strengthened, access narrowed) are non-breaking. Values of connector
settings are never echoed: only the key is named.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import is_secret_name

from streamt_impact.changes import NON_BREAKING, SECURITY, FieldChange

# How much of a value a mask method leaves readable: fewer is stronger. An unknown method counts as
# the weakest, so a change to it is never reported as harmless.
_MASK_STRENGTH = {"redact": 3, "null": 3, "hash": 2, "tokenize": 2, "partial": 1}
_ACCESS = ("private", "protected", "public")
# A snapshot keeps every ``${NAME}`` without a fallback as that text (``snapshot``), so it is seen here.
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def has_placeholder(value: str) -> bool:
    return _PLACEHOLDER.search(value) is not None


def security_changes(kind: str, old: Any, new: Any) -> list[FieldChange]:
    fields = _classifications(old, new)
    if kind == "model":
        policies = _masks(old.security, new.security) + _policies(old.security, new.security)
        if not policies and old.security != new.security:
            policies.append(
                _field("security", None, None, False, "security policies changed (no mask or access widened)")
            )
        fields += policies + _access(old, new) + _secrets(sink_config(old), sink_config(new))
    return fields


def _field(
    field: str, before: Any, after: Any, widened: bool, reason: str, columns: tuple[str, ...] = ()
) -> FieldChange:
    return FieldChange(
        field=field,
        before=before,
        after=after,
        classification=SECURITY if widened else NON_BREAKING,
        reason=reason,
        flows=widened,
        columns=columns,
    )


def _classified(declaration: Any) -> dict[str, str | None]:
    """Column -> classification, from the column declarations and a model's ``security.classification``."""
    out: dict[str, str | None] = {c.name: c.classification for c in declaration.columns if c.classification}
    security = getattr(declaration, "security", None)
    if security is not None:
        out.update(security.classification)
    return out


def _classifications(old: Any, new: Any) -> list[FieldChange]:
    before, after = _classified(old), _classified(new)
    fields = []
    for column in sorted(before.keys() | after.keys()):
        if before.get(column) != after.get(column):
            fields.append(
                _field(
                    f"classification.{column}",
                    before.get(column),
                    after.get(column),
                    True,
                    f"classification of column {column} changed: masks, access rules and the readers allowed "
                    "to see it may no longer match",
                    (column,),
                )
            )
    return fields


def _mask_map(security: Any) -> Any:
    policies = security.policies if security is not None else ()
    return {p.column: p for p in policies if p.kind == "mask" and p.column}


def _masks(old: Any, new: Any) -> list[FieldChange]:
    before, after = _mask_map(old), _mask_map(new)
    fields = []
    for column in sorted(before.keys() | after.keys()):
        a, b = before.get(column), after.get(column)
        if a == b:
            continue
        if b is None:
            fields.append(
                _field(
                    f"security.mask.{column}", a.method, None, True, "mask removed: readers see the value", (column,)
                )
            )
            continue
        if a is None:
            fields.append(_field(f"security.mask.{column}", None, b.method, False, "mask added", (column,)))
            continue
        weaker_method = _MASK_STRENGTH.get(b.method or "", 0) < _MASK_STRENGTH.get(a.method or "", 0)
        # ``for_roles`` narrows a mask to those roles (empty: every reader); fewer covered roles is weaker.
        fewer_roles = bool(b.for_roles) and (not a.for_roles or not set(a.for_roles) <= set(b.for_roles))
        weakened = weaker_method or fewer_roles
        what = "weakened" if weakened else "changed"
        detail = f"method {a.method} → {b.method}" if a.method != b.method else "applies to other roles"
        fields.append(
            _field(
                f"security.mask.{column}",
                f"{a.method} for {', '.join(a.for_roles) or 'every reader'}",
                f"{b.method} for {', '.join(b.for_roles) or 'every reader'}",
                weakened,
                f"mask {what}: {detail}",
                (column,),
            )
        )
    return fields


def _roles(security: Any, kind: str) -> set[str]:
    policies = security.policies if security is not None else ()
    return {role for p in policies if p.kind == kind for role in p.roles}


def _policies(old: Any, new: Any) -> list[FieldChange]:
    fields = []
    denied_before, denied_after = _roles(old, "deny"), _roles(new, "deny")
    if denied_before != denied_after:
        lifted = sorted(denied_before - denied_after)
        fields.append(
            _field(
                "security.deny",
                sorted(denied_before),
                sorted(denied_after),
                bool(lifted),
                f"deny lifted for {', '.join(lifted)}" if lifted else "deny extended",
            )
        )
    allowed_before, allowed_after = _roles(old, "allow"), _roles(new, "allow")
    if allowed_before != allowed_after:
        granted = sorted(allowed_after - allowed_before)
        fields.append(
            _field(
                "security.allow",
                sorted(allowed_before),
                sorted(allowed_after),
                bool(granted),
                f"access allowed to {', '.join(granted)}" if granted else "allowed roles reduced",
            )
        )
    return fields


def _access(old: Any, new: Any) -> list[FieldChange]:
    fields = []
    if old.access != new.access:
        wider = _rank(new.access) > _rank(old.access)
        fields.append(
            _field(
                "access",
                old.access,
                new.access,
                wider,
                "access widened: more models may read it" if wider else "access narrowed",
            )
        )
    if old.group != new.group:
        # A group scopes private access; dropping or changing it lets other models in.
        wider = old.group is not None and old.access != "public"
        fields.append(
            _field(
                "group",
                old.group,
                new.group,
                wider,
                "group changed: models of another group gain access" if wider else "group changed",
            )
        )
    return fields


def _rank(access: str) -> int:
    return _ACCESS.index(access) if access in _ACCESS else len(_ACCESS)  # unknown: widest


def sink_config(model: Any) -> dict[str, Any]:
    """The one read of a model's sink settings here (the provider owns the section)."""
    sink = model.section("sink")
    return dict(sink.config) if sink is not None else {}


def moved_secrets(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Secret-named keys of a sink's config that were a placeholder (or absent) and are now a literal."""
    moved = []
    for key in sorted(after):
        value = after[key]
        if not is_secret_name(str(key)) or not isinstance(value, str) or has_placeholder(value):
            continue
        if key in before and isinstance(before[key], str) and not has_placeholder(before[key]):
            continue  # already plain at the base: not this change's doing
        moved.append(str(key))
    return moved


def _secrets(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    return [
        _field(
            f"sink.config.{key}",
            None,
            None,
            True,
            "secret moved into plain config: the value is now committed to the repository "
            "instead of read from a ${NAME} placeholder",
        )
        for key in moved_secrets(old, new)
    ]
