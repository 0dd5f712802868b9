"""``rules`` (dsl.md §7): naming (E601), other rules (E602 with ``rule``), W104, W105, require_tests."""

from __future__ import annotations

import re
from typing import Any

import attrs

from streamt.errors import Codes, Diagnostic
from streamt.project.model import Model, Project

_CREATES_TOPIC = ("topic", "flink")


@attrs.frozen
class Governance:
    diagnostics: list[Diagnostic]
    summary: tuple[tuple[str, str], ...]


def _rule(rule: str, message: str, location: str | None, suggestion: str | None = None) -> Diagnostic:
    return Diagnostic(
        Codes.E602_GOVERNANCE_RULE_VIOLATION,
        message,
        suggestion or f"Fix the declaration or relax rules.{rule}.",
        location,
        {"rule": rule},
    )


def check(project: Project) -> Governance:
    out: list[Diagnostic] = []
    rules = project.rules
    topics, models_rules = rules.topics, rules.models
    loc = project.locations.get
    tested: dict[str, int] = {}
    for test in project.tests:
        tested[test.model] = tested.get(test.model, 0) + 1
    pattern = _compile(rules.topics.naming_pattern, out)

    def topic_rules(
        kind: str, name: str, topic: str, partitions: int | None, rf: int | None, config: dict, location: str | None
    ) -> None:
        what = f"{kind.capitalize()} '{name}'"
        for rule, value, limit, ok in (
            ("topics.min_partitions", partitions, topics.min_partitions, lambda v, n: v >= n),
            ("topics.max_partitions", partitions, topics.max_partitions, lambda v, n: v <= n),
            ("topics.min_replication_factor", rf, topics.min_replication_factor, lambda v, n: v >= n),
            ("topics.max_replication_factor", rf, topics.max_replication_factor, lambda v, n: v <= n),
        ):
            if value is not None and limit is not None and not ok(value, limit):
                op = ">=" if "min" in rule else "<="
                out.append(_rule(rule, f"{what} violates rule '{rule}': expected {op} {limit}, got {value}", location))
        for key in topics.required_config:
            if key not in config:
                out.append(
                    _rule(
                        "topics.required_config",
                        f"{what} violates rule 'topics.required_config': missing '{key}'",
                        location,
                    )
                )
        retention = _int(config.get("retention.ms"))
        if topics.max_retention_ms is not None and retention is not None and retention > topics.max_retention_ms:
            out.append(
                Diagnostic(
                    Codes.W104_RULE_MAX_RETENTION,
                    f"{what}: retention.ms {retention} exceeds the limit {topics.max_retention_ms}",
                    "Lower retention.ms or raise rules.topics.max_retention_ms.",
                    location,
                )
            )
        if pattern is not None and not pattern.match(topic):
            out.append(
                Diagnostic(
                    Codes.E601_NAMING_VIOLATION,
                    f"{what}: topic '{topic}' does not match naming pattern '{topics.naming_pattern}'",
                    "Rename the topic (advanced.topic.name) to match rules.topics.naming_pattern.",
                    location,
                    {"rule": "topics.naming_pattern"},
                )
            )
        for prefix in topics.forbidden_prefixes:
            if topic.startswith(prefix):
                out.append(
                    Diagnostic(
                        Codes.E601_NAMING_VIOLATION,
                        f"{what}: topic '{topic}' uses forbidden prefix '{prefix}'",
                        "Rename the topic.",
                        location,
                        {"rule": "topics.forbidden_prefixes"},
                    )
                )

    for model in project.models:
        location = loc(("model", model.name))
        if model.materialized in _CREATES_TOPIC:
            topic_rules(
                "model",
                model.name,
                model.topic_name,
                model.topic.partitions,
                model.topic.replication_factor,
                model.topic.config,
                location,
            )
        out += _model_rules(project, model, tested.get(model.name, 0), location)
    for source in project.sources:
        location = loc(("source", source.name))
        if source.ownership.mode in ("managed", "adopted"):
            topic_rules("source", source.name, source.topic, None, None, {}, location)
        s = rules.sources
        for flag, present, rule in (
            (s.require_schema, source.schema is not None, "sources.require_schema"),
            (s.require_freshness, source.freshness is not None, "sources.require_freshness"),
            (s.require_columns, bool(source.columns), "sources.require_columns"),
            (s.require_owner, bool(source.owner), "sources.require_owner"),
            (s.require_description, bool(source.description), "sources.require_description"),
        ):
            if flag and not present:
                out.append(_rule(rule, f"Source '{source.name}' violates rule '{rule}'", location))
        if models_rules.valid_owners is not None and source.owner and source.owner not in models_rules.valid_owners:
            out.append(_owner(f"Source '{source.name}'", source.owner, models_rules.valid_owners, location))
        out += _security_columns(project, source.name, source.columns, location)
    for exposure in project.exposures:
        if models_rules.valid_owners is not None and exposure.owner and exposure.owner not in models_rules.valid_owners:
            out.append(
                _owner(
                    f"Exposure '{exposure.name}'",
                    exposure.owner,
                    models_rules.valid_owners,
                    loc(("exposure", exposure.name)),
                )
            )
    out += _masking(project)
    return Governance(out, _summary(project, out))


def _model_rules(project: Project, model: Model, tests: int, location: str | None) -> list[Diagnostic]:
    rules = project.rules.models
    out: list[Diagnostic] = []
    what = f"Model '{model.name}'"
    if rules.require_description and not model.description:
        out.append(_rule("models.require_description", f"{what} violates rule 'models.require_description'", location))
    if rules.require_owner and not model.owner:
        out.append(_rule("models.require_owner", f"{what} violates rule 'models.require_owner'", location))
    if rules.valid_owners is not None and model.owner and model.owner not in rules.valid_owners:
        out.append(_owner(what, model.owner, rules.valid_owners, location))
    if rules.require_tests and tests == 0:
        out.append(
            Diagnostic(
                Codes.W122_RULE_REQUIRE_TESTS,
                f"{what} has no tests (rule 'models.require_tests')",
                "Add a test targeting the model.",
                location,
                {"rule": "models.require_tests"},
            )
        )
    if rules.min_tests is not None and tests < rules.min_tests:
        out.append(
            _rule(
                "models.min_tests",
                f"{what} violates rule 'models.min_tests': expected >= {rules.min_tests}, got {tests}",
                location,
            )
        )
    if rules.max_dependencies is not None and len(model.dependencies) > rules.max_dependencies:
        out.append(
            _rule(
                "models.max_dependencies",
                f"{what} violates rule 'models.max_dependencies': "
                f"expected <= {rules.max_dependencies}, got {len(model.dependencies)}",
                location,
            )
        )
    if rules.allowed_materializations is not None and model.materialized not in rules.allowed_materializations:
        out.append(
            _rule(
                "models.allowed_materializations",
                f"{what} violates rule 'models.allowed_materializations': '{model.materialized}' is not allowed",
                location,
            )
        )
    return out


def _owner(what: str, owner: str, valid: tuple[str, ...], location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.W105_RULE_INVALID_OWNER,
        f"{what}: owner '{owner}' is not in rules.models.valid_owners",
        "Valid owners: " + ", ".join(valid),
        location,
    )


def _security_columns(project: Project, name: str, columns: tuple, location: str | None) -> list[Diagnostic]:
    rules = project.rules.security
    out: list[Diagnostic] = []
    for column in columns:
        if rules.require_classification and not column.classification:
            rule = "security.require_classification"
            out.append(_rule(rule, f"Source '{name}' column '{column.name}' violates rule '{rule}'", location))
        allowed = rules.allowed_classifications
        if allowed is not None and column.classification and column.classification not in allowed:
            rule = "security.allowed_classifications"
            message = f"Source '{name}' column '{column.name}': classification '{column.classification}' not allowed"
            out.append(_rule(rule, message, location))
    return out


def _masking(project: Project) -> list[Diagnostic]:
    if not project.rules.security.sensitive_columns_require_masking:
        return []
    sensitive: list[tuple[str, str]] = []
    for source in project.sources:
        sensitive += [(source.name, c.name) for c in source.columns if c.classification in _SENSITIVE]
    for model in project.models:
        if model.security is not None:
            sensitive += [(model.name, c) for c, level in model.security.classification.items() if level in _SENSITIVE]
    masked = {
        p.column
        for m in project.models
        if m.security is not None
        for p in m.security.policies
        if p.kind == "mask" and p.column
    }
    rule = "security.sensitive_columns_require_masking"
    return [
        _rule(
            rule,
            f"Column '{owner}.{column}' is sensitive but no mask policy covers it",
            project.locations.get(("source", owner)) or project.locations.get(("model", owner)),
            "Add a security.policies mask for the column.",
        )
        for owner, column in sensitive
        if column not in masked
    ]


_SENSITIVE = ("sensitive", "highly_sensitive")


def _summary(project: Project, found: list[Diagnostic]) -> tuple[tuple[str, str], ...]:
    rules = project.rules
    lines: list[tuple[str, str]] = []

    def rule_failures(*names: str) -> int:
        return sum(1 for d in found if d.details.get("rule") in names)

    if rules.topics.min_partitions is not None:
        n = rule_failures("topics.min_partitions")
        lines.append(
            ("fail", f"{n} topic(s) below minimum partitions")
            if n
            else ("ok", "All topics meet minimum partition requirement")
        )
    if rules.topics.naming_pattern or rules.topics.forbidden_prefixes:
        n = rule_failures("topics.naming_pattern", "topics.forbidden_prefixes")
        lines.append(("fail", f"{n} topic naming violation(s)") if n else ("ok", "All topics follow naming rules"))
    if rules.models.require_description:
        n = rule_failures("models.require_description")
        lines.append(("fail", f"{n} model(s) missing descriptions") if n else ("ok", "All models have descriptions"))
    if rules.models.require_owner:
        n = rule_failures("models.require_owner")
        lines.append(("fail", f"{n} model(s) missing owners") if n else ("ok", "All models have owners"))
    if rules.models.require_tests:
        n = rule_failures("models.require_tests")
        plural = "model" if n == 1 else "models"
        lines.append(("warn", f"{n} {plural} missing tests (warning)") if n else ("ok", "All models have tests"))
    if rules.security.sensitive_columns_require_masking:
        n = rule_failures("security.sensitive_columns_require_masking")
        lines.append(("fail", f"{n} sensitive column(s) unmasked") if n else ("ok", "All sensitive columns are masked"))
    return tuple(lines)


def _compile(pattern: str | None, out: list[Diagnostic]) -> Any:
    """The pattern compiled for RE2, whose matching time is linear in the topic name.

    Python's backtracking engine takes exponential time on patterns like ``^(a+)+$``; a project file
    must never be able to hang validation. RE2 has no backreferences or lookarounds, so a pattern
    that Python accepts but RE2 cannot run is refused with its own message.
    """
    if not pattern:
        return None
    import re2  # a compiled extension, loaded only by projects that declare a pattern

    try:
        re.compile(pattern)
    except re.error as exc:
        out.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"rules.topics.naming_pattern is not a valid regular expression: {exc}",
                "Fix the pattern (Python regular expression syntax).",
            )
        )
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options=options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        out.append(
            Diagnostic(
                Codes.E501_PARSE_ERROR,
                f"rules.topics.naming_pattern cannot be matched in linear time: {reason}",
                "Remove backreferences and lookarounds ((?=, (?!, (?<=, \\1): patterns run on the RE2 engine.",
            )
        )
        return None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None
