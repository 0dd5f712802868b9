"""Virtual-topic models -> Gateway rule artifacts (dsl.md section 9.7).

A rule is an alias topic over the physical topic of the model's single upstream plus
interceptors: the SQL ``WHERE`` becomes ``{type: filter, config: {where}}`` and each ``mask``
policy ``{type: mask, config: {field, method, forRoles}}``. The spec has exactly the keys of a
``lifecycle.gateway_rule_removals[].prior_artifact`` (``name``, ``virtualTopic``,
``physicalTopic``, ``interceptors``) so a removed rule can be copied into a tombstone as is.
Translating interceptors into Gateway plugin classes is the deployer's job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlparse
from sqlparse import tokens as T

# The mask methods a Gateway masking rule implements (dsl.md also names hash, partial, tokenize and null).
MASK_RULES = {"redact": "MASK_ALL"}

# Operators Gateway's SQL topic filter accepts: = <> > < >= <= REGEXP, joined by AND.
_UNSUPPORTED = ("OR", "IN", "IS", "LIKE", "BETWEEN", "NOT")
_RELATION_RE = re.compile(r"""\{\{-?\s*(source|ref)\(\s*(['"])([^'"]+)\2\s*\)\s*-?\}\}""")
_END_OF_WHERE = ("GROUP BY", "ORDER BY", "HAVING", "LIMIT", "WINDOW", "UNION")


def where_clause(sql: str) -> str | None:
    """The outer query's ``WHERE`` condition with whitespace collapsed, or ``None``."""
    text = _RELATION_RE.sub(lambda m: m.group(3), sql)
    statements = sqlparse.parse(text)
    if not statements:
        return None
    depth, collecting, parts = 0, False, list[str]()
    for token in statements[0].flatten():
        keyword = " ".join(token.normalized.upper().split()) if token.ttype in T.Keyword else None
        if depth == 0 and keyword == "WHERE":
            collecting = True
            continue
        if depth == 0 and collecting and keyword in _END_OF_WHERE:
            break
        if token.value == "(":
            depth += 1
        elif token.value == ")":
            depth -= 1
        if collecting:
            parts.append(" " if token.is_whitespace else token.value)
    condition = re.sub(r"\s+", " ", "".join(parts)).strip().rstrip(";").strip()
    return condition or None


def unsupported_operators(condition: str) -> list[str]:
    """Operators in ``condition`` that Gateway's filter cannot evaluate, in first-seen order."""
    found: list[str] = []
    statements = sqlparse.parse(f"SELECT * FROM t WHERE {condition}")
    for token in statements[0].flatten() if statements else ():
        # sqlparse lexes LIKE as a comparison operator and "NOT NULL" as one keyword.
        words = token.value.upper().split() if token.ttype in T.Keyword or token.ttype in T.Operator else []
        found.extend(w for w in words if w in _UNSUPPORTED and w not in found)
    return found


def mask_interceptor(field: str, method: str, for_roles: Sequence[str]) -> dict[str, object]:
    return {"type": "mask", "config": {"field": field, "method": method, "forRoles": list(for_roles)}}


def gateway_rule(
    name: str,
    virtual_topic: str,
    physical_topic: str,
    where: str | None = None,
    masks: Sequence[tuple[str, str, Sequence[str]]] = (),
) -> dict[str, object]:
    """The rule spec: filter first (it drops records), then masks in declaration order."""
    interceptors: list[dict[str, object]] = []
    if where:
        interceptors.append({"type": "filter", "config": {"where": where}})
    interceptors.extend(mask_interceptor(field, method, roles) for field, method, roles in masks)
    return {"name": name, "virtualTopic": virtual_topic, "physicalTopic": physical_topic, "interceptors": interceptors}
