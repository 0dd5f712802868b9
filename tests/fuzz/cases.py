"""The hostile inputs of issue 12, as project fixtures: each once made streamt hang, crash or accept it.

Every ``Case`` is a small project (``files``: relative path -> YAML text), the command that showed
the defect, and what the fixed command must answer: the error code (``expect``), or ``None`` when
the project is valid and the command must succeed. ``group`` is the issue's numbering.
"""

from __future__ import annotations

import attrs

HEAD = 'project: {name: r}\nruntime: {kafka: {bootstrap_servers: "x:1"}}\n'
FLINK_HEAD = (
    "project: {name: r}\n"
    'runtime: {kafka: {bootstrap_servers: "x:1"}, flink: {default: f, clusters: {f: {rest_url: "http://x:1", '
    'sql_gateway_url: "http://x:2"}}}}\n'
)
SOURCE = "sources: [{name: s, topic: t, columns: [{name: ts, type: TIMESTAMP(3)}, {name: a, type: STRING}]}]\n"


def _streams_head(network: str) -> str:
    image = "sha256:" + "0" * 64
    streams = f"kafka_streams: {{image: '{image}', docker_network: {network}, initial_offset: earliest}}"
    return HEAD.replace('"x:1"}}', f'"x:1"}}, {streams}}}')


@attrs.frozen
class Case:
    id: str
    group: int
    body: str
    command: tuple[str, ...] = ("validate",)
    expect: str | None = "E501_PARSE_ERROR"
    head: str = HEAD

    @property
    def files(self) -> dict[str, str]:
        return {"stream_project.yml": self.head + self.body}


def _type_case(name: str, sql_type: str) -> Case:
    body = f"sources: [{{name: s, topic: t, columns: [{{name: a, type: {sql_type}}}]}}]\n"
    body += "models: [{name: m, sql: \"SELECT a FROM {{ source('s') }}\"}]\n"
    return Case(f"column-type-{name}", 2, body, ("compile",), head=FLINK_HEAD)


def _lag_case(name: str, body: str) -> Case:
    text = SOURCE + "models: [{name: m, sql: \"SELECT ts FROM {{ source('s') }}\"}]\n"
    text += f"tests: [{{name: t1, model: m, type: continuous, assertions: [{{max_lag: {body}}}]}}]\n"
    return Case(f"max-lag-{name}", 2, text, ("compile",), head=FLINK_HEAD)


def _chain(length: int) -> str:
    lines = ["sources: [{name: s0, topic: t0, columns: [{name: a, type: STRING}]}]", "models:"]
    lines.append("  - {name: m0, sql: \"SELECT a FROM {{ source('s0') }}\"}")
    lines += [f"  - {{name: m{i}, sql: \"SELECT a FROM {{{{ ref('m{i - 1}') }}}}\"}}" for i in range(1, length)]
    return "\n".join(lines) + "\n"


def _many_keys(count: int) -> str:
    return "".join(f"k{i}: 1\n" for i in range(count))


CASES: tuple[Case, ...] = (
    # 1. ReDoS: a backtracking engine doubles its time per extra 'a'.
    Case(
        "redos-naming-pattern",
        1,
        "rules: {topics: {naming_pattern: '^(a+)+$'}}\n"
        "models: [{name: m, materialized: topic, topic: {name: " + "a" * 40 + "!}}]\n",
        ("validate",),
        "E601_NAMING_VIOLATION",
    ),
    Case(
        "naming-pattern-backreference",
        1,
        "rules: {topics: {naming_pattern: '^(a)\\1$'}}\nmodels: [{name: m, materialized: topic}]\n",
    ),
    # 2. Type confusion: E501 at validate with the path, never E999.
    Case("sql-is-a-list", 2, "models: [{name: m, sql: [1]}]\n"),
    Case("from-is-a-number", 2, "models: [{name: m, from: 5}]\n"),
    Case("tags-is-a-string", 2, "models: [{name: m, materialized: topic, tags: pii}]\n"),
    Case("topic-config-is-a-list", 2, "models: [{name: m, materialized: topic, topic: {config: [1]}}]\n"),
    _type_case("blank", "' '"),
    _type_case("non-ascii", "ßSTRING"),
    _type_case("unbalanced", "'DECIMAL(10,2'"),
    # Valid Flink types validate and compile (the shape rule once refused them at validate, then at compile).
    attrs.evolve(_type_case("with-not-null", "'VARCHAR(8) NOT NULL'"), expect=None),
    attrs.evolve(_type_case("interval", "'INTERVAL YEAR(2) TO MONTH'"), expect=None),
    attrs.evolve(_type_case("timestamp-ltz", "'TIMESTAMP(3) WITH LOCAL TIME ZONE'"), expect=None),
    Case(
        "raw-block-hides-a-source-call",
        2,
        "sources: [{name: s, topic: t}]\n"
        "models: [{name: m, sql: \"SELECT * FROM {% raw %}{{ source('x') }}{% endraw %} JOIN {{ source('s') }}\"}]\n",
        ("compile",),
        "E105_JINJA_SYNTAX_ERROR",
        FLINK_HEAD,
    ),
    _lag_case("seconds-null-text", '{column: ts, max_seconds: "null"}'),
    _lag_case("seconds-map", "{column: ts, max_seconds: {}}"),
    _lag_case("column-list", "{column: [x], max_seconds: 5}"),
    Case(
        "schema-definition-deeply-nested",
        2,
        "sources: [{name: s, topic: t, ownership: {mode: managed}, schema: {format: json, definition: '"
        + "[" * 1000
        + "'}}]\n",
        ("compile",),
    ),
    # 3. A valid 1,000-model chain: no recursion proportional to depth.
    Case("lineage-chain-ascii", 3, _chain(1000), ("lineage",), None, FLINK_HEAD),
    Case("lineage-chain-mermaid", 3, _chain(1000), ("lineage", "--format", "mermaid"), None, FLINK_HEAD),
    # 5. 20,000 unknown top-level keys (legacy: W401 each; strict: E501 each) in linear time.
    Case("many-unknown-keys-legacy", 5, _many_keys(20_000), ("validate",), None),
    Case("many-unknown-keys-strict", 5, _many_keys(20_000), head="apiVersion: streamt.dev/v1alpha1\n" + HEAD),
    # 9. Accepted but invalid per dsl.md.
    Case("security-protocol-unknown", 9, "", head=HEAD.replace('"x:1"}', '"x:1", security_protocol: SASL_NOPE}')),
    Case("sasl-mechanism-without-sasl", 9, "", head=HEAD.replace('"x:1"}', '"x:1", sasl_mechanism: PLAIN}')),
    Case("schema-format-xml", 9, "sources: [{name: s, topic: t, schema: {format: xml}}]\n"),
    Case(
        "avro-definition-not-json",
        9,
        "sources: [{name: s, topic: t, ownership: {mode: managed}, schema: {format: avro, definition: 'x'}}]\n",
    ),
    Case("partitions-beyond-int32", 9, "models: [{name: m, materialized: topic, topic: {partitions: 2147483648}}]"),
    Case("partitions-zero", 9, "models: [{name: m, materialized: topic, topic: {partitions: 0}}]\n"),
    Case("replication-factor-negative", 9, "models: [{name: m, materialized: topic, topic: {replication_factor: -1}}]"),
    Case("project-name-empty", 9, "", head=HEAD.replace("{name: r}", '{name: ""}')),
    Case("project-name-with-slash", 9, "", head=HEAD.replace("{name: r}", '{name: "a/b"}')),
    Case("project-version-integer", 9, "", head=HEAD.replace("{name: r}", "{name: r, version: 3}")),
    Case(
        "dsn-env-holds-a-dsn",
        9,
        "deployment_state: {backend: postgres, namespace: n, postgres: {dsn_env: 'postgresql://u:fuzzSentinel9Q7@h/d'}}\n",
    ),
    Case(
        "exposure-feedback-loop",
        9,
        SOURCE + "models: [{name: m, sql: \"SELECT a FROM {{ source('s') }}\"}]\n"
        "exposures: [{name: app, type: application, consumes: [{ref: m}], produces: [{source: s}]}]\n",
        ("validate",),
        "E104_CYCLE_DETECTED",
        FLINK_HEAD,
    ),
    Case("bootstrap-servers-map-inside", 9, "", head=HEAD.replace('"x:1"', '["x:1", {a: 1}]')),
    Case("topic-config-non-scalar", 9, "models: [{name: m, materialized: topic, topic: {config: {a.b: [1]}}}]"),
    # Issue 28, finding 10: a non-list policies block is a type error, not E999 (validate, lineage, compile).
    Case("security-policies-integer", 28, "models: [{name: m, materialized: topic, security: {policies: 5}}]\n"),
    Case("security-policies-integer-lineage", 28, "models: [{name: m, security: {policies: 5}}]\n", ("lineage",)),
    # Issue 28, finding 10: a name validate accepts is one docs generate and Kafka can write.
    Case("model-name-longer-than-a-file-name", 28, f"models: [{{name: m{'x' * 260}, materialized: topic}}]\n"),
    Case("exposure-name-escaped-past-a-file-name", 28, f"exposures: [{{name: '{'é' * 60}', type: application}}]\n"),
    Case("source-topic-longer-than-kafka-allows", 28, f"sources: [{{name: s, topic: t{'x' * 249}}}]\n"),
    # Issue 28, finding 8: the runner's network is host or a named user network, nothing else.
    *(
        Case(f"docker-network-{label}", 28, "", head=_streams_head(network))
        for label, network in (
            ("container", "container:0123456789ab"),
            ("none", "none"),
            ("bridge", "bridge"),
            ("default", "default"),
            ("300-characters", "n" * 300),
            ("with-a-space", "'my net'"),
        )
    ),
    Case("docker-network-named", 28, "", expect=None, head=_streams_head("streaming-local")),
    Case("docker-network-host", 28, "", expect=None, head=_streams_head("host")),
)
