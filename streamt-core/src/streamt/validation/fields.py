"""Field values that dsl.md constrains beyond their YAML type (E501), checked before anything uses them.

Structuring guarantees each field's type; this module checks the values that compilers, planners and
exporters later rely on (enumerations, ranges, shapes of free-form maps), so that a project
``validate`` accepts never fails later with an internal error. The values of a plugin's section
are checked by that plugin: ``deployment_state.*`` here, ``runtime.*`` with the runtime requirements.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from streamt.errors import Codes, Diagnostic
from streamt.project import sections as plugin_sections
from streamt.project.model import Column, Project
from streamt.sql.types import declared_type_problem

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
SCHEMA_FORMATS = ("avro", "json", "protobuf")
# Deeper JSON than this is no schema anyone writes; the bound keeps every later walk shallow.
MAX_DEFINITION_DEPTH = 64
# The declared column types the Flink DDL generator accepts (dsl.md §8: a Flink SQL type string).

_TEMPLATE_LEFTOVER = re.compile(r"\{\{|\{%|\{#")
_SCALAR = (str, int, float, bool)


def _e501(message: str, suggestion: str, location: str | None) -> Diagnostic:
    return Diagnostic(Codes.E501_PARSE_ERROR, message, suggestion, location)


def check(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    out += _project_info(project)
    out += _kafka(project)
    out += plugin_sections.check(project, "deployment_state")
    loc = project.locations.get
    defaults = project.defaults
    for block, where in ((defaults.topic, "defaults.topic"), (defaults.models and defaults.models.topic, None)):
        if block is not None:
            out += _topic_shape(where or "defaults.models.topic", block, None)
    for source in project.sources:
        location = loc(("source", source.name))
        out += _columns(f"source '{source.name}'", source.columns, location)
        out += _schema(source, location)
    for model in project.models:
        location = loc(("model", model.name))
        where = f"model '{model.name}'"
        out += _topic_shape(f"{where} topic", model.topic, location)
        out += _columns(where, model.columns, location)
        if model.contract is not None:
            out += _columns(f"{where} contract", model.contract.columns, location)
        if model.rendered_sql is not None and _TEMPLATE_LEFTOVER.search(model.rendered_sql):
            out.append(
                Diagnostic(
                    Codes.E105_JINJA_SYNTAX_ERROR,
                    f"Rendered SQL of {where} still contains template markers ('{{{{', '{{%' or '{{#')",
                    "Remove the {% raw %} block: no engine accepts Jinja text in SQL.",
                    location,
                )
            )
    for test in project.tests:
        out += _assertions(test.name, test.assertions, loc(("test", test.name)))
    return out


def _project_info(project: Project) -> list[Diagnostic]:
    name = project.info.name
    if name.strip() and "/" not in name:
        return []
    return [
        _e501(
            f"Invalid project.name {name!r}: it must be non-empty and contain no '/'",
            "The name is a segment of ownership IDs (streamt://<project>/<env>/...); pick a plain name.",
            "stream_project.yml",
        )
    ]


def _kafka(project: Project) -> list[Diagnostic]:
    kafka = project.runtime.kafka
    out: list[Diagnostic] = []
    protocol = kafka.security_protocol.upper()
    if protocol not in SECURITY_PROTOCOLS:
        out.append(
            _e501(
                f"Invalid runtime.kafka.security_protocol '{kafka.security_protocol}'. "
                f"Valid: {', '.join(SECURITY_PROTOCOLS)}",
                f"Use one of: {', '.join(SECURITY_PROTOCOLS)}.",
                None,
            )
        )
    mechanism = kafka.sasl_mechanism
    if mechanism is not None:
        if mechanism.upper() not in SASL_MECHANISMS:
            out.append(
                _e501(
                    f"Invalid runtime.kafka.sasl_mechanism '{mechanism}'. Valid: {', '.join(SASL_MECHANISMS)}",
                    f"Use one of: {', '.join(SASL_MECHANISMS)}.",
                    None,
                )
            )
        elif protocol in SECURITY_PROTOCOLS and not protocol.startswith("SASL_"):
            out.append(
                _e501(
                    f"runtime.kafka.sasl_mechanism '{mechanism}' needs a SASL security_protocol, not {protocol}",
                    "Set security_protocol to SASL_SSL or SASL_PLAINTEXT, or remove sasl_mechanism.",
                    None,
                )
            )
    if not kafka.bootstrap_servers.strip():
        out.append(_e501("runtime.kafka.bootstrap_servers is empty", "List at least one host:port.", None))
    return out


def _topic_shape(where: str, block: Any, location: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    # Kafka's wire types: partitions are an int32, the replication factor an int16.
    for field, most in (("partitions", 2**31 - 1), ("replication_factor", 2**15 - 1)):
        value = getattr(block, field)
        if value is not None and not 1 <= value <= most:
            message = f"Invalid {field} {value} in {where}: it must be from 1 to {most}"
            out.append(_e501(message, f"Set {field} between 1 and {most}.", location))
    for key, value in block.config.items():
        if value is not None and not isinstance(value, _SCALAR):
            out.append(
                _e501(
                    f"Invalid topic config '{key}' in {where}: expected a string, number or boolean",
                    "Topic configs are Kafka settings: write each value as a scalar (lists as 'a,b').",
                    location,
                )
            )
    return out


def _columns(where: str, columns: Iterable[Column], location: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for column in columns:
        problem = declared_type_problem(column.type) if column.type is not None else None
        if problem is not None:
            out.append(
                _e501(
                    f"Invalid type {column.type!r} of column '{column.name}' in {where}: {problem}",
                    "Write a Flink SQL type (dsl.md §8), e.g. STRING, BIGINT, TIMESTAMP(3), DECIMAL(10, 2).",
                    location,
                )
            )
    return out


def _schema(source: Any, location: str | None) -> list[Diagnostic]:
    schema = source.schema
    if schema is None:
        return []
    where = f"source '{source.name}'"
    fmt = (schema.format or "avro").lower()
    if fmt not in SCHEMA_FORMATS:
        return [
            _e501(
                f"Invalid schema.format '{schema.format}' in {where}. Valid: {', '.join(SCHEMA_FORMATS)}",
                f"Use one of: {', '.join(SCHEMA_FORMATS)}.",
                location,
            )
        ]
    out: list[Diagnostic] = []
    if isinstance(schema.version, bool) or not (
        schema.version is None or isinstance(schema.version, int) or schema.version == "latest"
    ):
        out.append(
            _e501(f"Invalid schema.version in {where}: expected an integer or 'latest'", "Pin a number.", location)
        )
    if schema.definition is not None and fmt in ("avro", "json"):
        problem = _json_problem(schema.definition)
        if problem is not None:
            out.append(
                _e501(
                    f"Source '{source.name}': schema.definition is not valid JSON for format {fmt.upper()} ({problem})",
                    "Write the schema as JSON, or use format: protobuf for a .proto definition.",
                    location,
                )
            )
    return out


def _json_problem(text: str) -> str | None:
    try:
        document = json.loads(text)
    except RecursionError:
        return "nested too deeply"
    except ValueError as exc:
        return str(exc).split(":")[0]
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEFINITION_DEPTH:
            return f"nested deeper than {MAX_DEFINITION_DEPTH} levels"
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return None


_NAME = ("a column name", lambda v: isinstance(v, str))
_NAMES = ("a list of column names", lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v))
_VALUE = ("a string, number or boolean", lambda v: isinstance(v, _SCALAR))
_SECONDS = ("a number of seconds >= 0", lambda v: _number(v) and v >= 0)
_TEXT = ("SQL text", lambda v: isinstance(v, str))
# Per assertion kind, the body fields that compilers and test runners read, with what they need.
_ASSERTION_FIELDS: dict[str, dict[str, tuple[str, Any]]] = {
    "not_null": {"columns": _NAMES},
    "unique": {"columns": _NAMES},
    "accepted_values": {
        "column": _NAME,
        # A single scalar is accepted as upstream did (`values: 0-200`); maps inside are not.
        "values": (
            "a list of values",
            lambda v: isinstance(v, _SCALAR) or (isinstance(v, list) and all(isinstance(x, _SCALAR) for x in v)),
        ),
    },
    "range": {"column": _NAME, "min": _VALUE, "max": _VALUE},
    "max_lag": {"column": _NAME, "max_seconds": _SECONDS},
    "unique_key": {"key": ("a column name or a list of them", lambda v: isinstance(v, str) or _NAMES[1](v))},
    "custom_sql": {"where": _TEXT, "detail_column": _NAME},
    "expression": {"sql": _TEXT},
    "accepted_types": {"types": ("a map of column to type", lambda v: isinstance(v, dict))},
}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _assertions(test: str, assertions: Iterable[Any], location: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for index, assertion in enumerate(assertions):
        for kind, body in assertion.items():
            fields = _ASSERTION_FIELDS.get(kind)
            if fields is None or not isinstance(body, dict):
                continue
            for field, (expected, fits) in fields.items():
                value = body.get(field)
                if value is not None and not fits(value):
                    out.append(
                        _e501(
                            f"Test '{test}' assertion {index} ({kind}): '{field}' must be {expected}",
                            "Fix the assertion (dsl.md §11 lists each assertion's fields).",
                            location,
                        )
                    )
    return out
