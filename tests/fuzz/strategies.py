"""Hypothesis strategies for hostile projects: raw bytes, arbitrary YAML, and near-valid project models.

Near-valid projects matter most: they get past the parser and exercise validation, compile and the
exporters. They are built from the DSL's own vocabulary (field names, materializations, SQL that
calls ``source()``/``ref()``), then any field may be replaced by a value of the wrong type. Secret
fields always hold the sentinel, so every run also checks that no secret leaks.
"""

from __future__ import annotations

import os
from typing import Any

from harness import SENTINEL
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# The normal run (./dev test) is bounded and reproducible; STREAMT_FUZZ_EXAMPLES=2000 runs longer,
# with fresh random inputs (see tests/fuzz/README.md).
EXAMPLES = int(os.environ.get("STREAMT_FUZZ_EXAMPLES", "0") or 0)
LONG = EXAMPLES > 0


def budget(default: int) -> settings:
    return settings(
        max_examples=EXAMPLES or default,
        deadline=None,
        derandomize=not LONG,
        database=None if not LONG else settings.default.database,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


NAMES = st.sampled_from(["a", "b", "m", "s", "orders", "x.y", "1", "", " ", "é", "a/b", "a b", "-", "_"])
TEXT = st.one_of(NAMES, st.text(max_size=12), st.sampled_from(["${UNSET}", "{{ ref('a') }}", "\x00", "\ud800"]))
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), TEXT)
ANY_VALUE: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=8,
)
TYPES = st.sampled_from(["STRING", "BIGINT", "TIMESTAMP(3)", "DECIMAL(10, 2)", "ARRAY<STRING>", "ROW<a INT>", "INT"])
SQL = st.one_of(
    st.builds(lambda a: f"SELECT * FROM {{{{ source('{a}') }}}}", NAMES),
    st.builds(lambda a: f"SELECT a, COUNT(*) AS n FROM {{{{ ref('{a}') }}}} GROUP BY a", NAMES),
    st.builds(lambda a, b: f"SELECT * FROM {{{{ ref('{a}') }}}} JOIN {{{{ source('{b}') }}}} ON 1=1", NAMES, NAMES),
    st.builds(lambda a: f"SELECT a FROM {{{{ ref('{a}') }}}} WHERE a > 1", NAMES),
    st.text(max_size=40),
)


def _maybe_wrong(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right kind of value (so that some projects validate); sometimes anything at all."""
    return st.one_of(*([value] * 7), ANY_VALUE)


def _block(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    required = {k: _maybe_wrong(v) for k, v in fields.items() if k == "name"}
    optional = {k: _maybe_wrong(v) for k, v in fields.items() if k != "name"}
    return st.fixed_dictionaries(required, optional=optional)


COLUMN = _block(
    {
        "name": NAMES,
        "type": TYPES,
        "classification": st.sampled_from(["public", "sensitive", "x"]),
        "description": TEXT,
        "required": st.booleans(),
    }
)
COLUMNS = st.lists(COLUMN, max_size=3)
SOURCE = _block(
    {
        "name": NAMES,
        "topic": NAMES,
        "columns": COLUMNS,
        "ownership": st.fixed_dictionaries({"mode": st.sampled_from(["external", "managed", "adopted"])}),
        "schema": st.fixed_dictionaries(
            {}, optional={"format": st.sampled_from(["avro", "json", "protobuf"]), "definition": TEXT}
        ),
        "event_time": st.fixed_dictionaries({"column": NAMES}),
        "freshness": st.fixed_dictionaries({}, optional={"max_lag_seconds": _maybe_wrong(st.integers(-5, 100))}),
        "description": TEXT,
        "owner": NAMES,
        "tags": st.lists(NAMES, max_size=2),
    }
)
MODEL = _block(
    {
        "name": NAMES,
        "sql": SQL,
        "from": st.one_of(NAMES, st.lists(NAMES, max_size=2)),
        "materialized": st.sampled_from(["topic", "flink", "sink", "virtual_topic"]),
        "columns": COLUMNS,
        "topic": st.fixed_dictionaries(
            {},
            optional={
                "name": NAMES,
                "partitions": st.integers(-2, 64),
                "replication_factor": st.integers(-1, 3),
                "config": st.dictionaries(st.sampled_from(["retention.ms", "cleanup.policy"]), SCALARS, max_size=2),
            },
        ),
        "sink": st.fixed_dictionaries({"connector": st.sampled_from(["jdbc-sink", "x"]), "config": ANY_VALUE}),
        "access": st.sampled_from(["private", "public", "protected"]),
        "group": NAMES,
        "tags": st.lists(NAMES, max_size=2),
        "description": TEXT,
        "owner": NAMES,
        "version": _maybe_wrong(st.integers(0, 3)),
        "deprecation": ANY_VALUE,
        "security": st.fixed_dictionaries(
            {},
            optional={
                "classification": st.dictionaries(NAMES, st.sampled_from(["sensitive", "public", "x"]), max_size=2),
                "policies": st.lists(
                    st.one_of(
                        st.fixed_dictionaries({"mask": st.fixed_dictionaries({"column": NAMES, "method": NAMES})}),
                        ANY_VALUE,
                    ),
                    max_size=2,
                ),
            },
        ),
        "contract": st.fixed_dictionaries({}, optional={"columns": COLUMNS, "enforced": st.booleans()}),
        "ml_outputs": st.dictionaries(
            NAMES, st.one_of(st.none(), st.fixed_dictionaries({"columns": COLUMNS})), max_size=1
        ),
        "key": NAMES,
        "event_time": st.fixed_dictionaries({"column": NAMES}),
    }
)
ASSERTION = st.one_of(
    st.fixed_dictionaries({"not_null": st.fixed_dictionaries({"columns": _maybe_wrong(st.lists(NAMES, max_size=2))})}),
    st.fixed_dictionaries(
        {"max_lag": st.fixed_dictionaries({"column": _maybe_wrong(NAMES), "max_seconds": _maybe_wrong(st.integers())})}
    ),
    st.fixed_dictionaries(
        {"range": st.fixed_dictionaries({"column": _maybe_wrong(NAMES), "min": SCALARS, "max": SCALARS})}
    ),
    st.dictionaries(TEXT, ANY_VALUE, max_size=1),
)
TEST = _block(
    {
        "name": NAMES,
        "model": NAMES,
        "type": st.sampled_from(["schema", "sample", "continuous"]),
        "assertions": st.lists(ASSERTION, max_size=2),
    }
)
REF = st.one_of(NAMES, st.fixed_dictionaries({"ref": NAMES}), st.fixed_dictionaries({"source": NAMES}))
EXPOSURE = _block(
    {
        "name": NAMES,
        "type": st.sampled_from(["application", "dashboard", "api"]),
        "consumes": st.lists(REF, max_size=2),
        "produces": st.lists(REF, max_size=2),
        "owner": NAMES,
        "sla": ANY_VALUE,
        "contracts": ANY_VALUE,
        "access": ANY_VALUE,
        "freshness": ANY_VALUE,
        "data_requirements": ANY_VALUE,
        "url": TEXT,
        "consumer_group": NAMES,
    }
)
RUNTIME = st.fixed_dictionaries(
    {
        "kafka": st.fixed_dictionaries(
            {"bootstrap_servers": _maybe_wrong(st.sampled_from(["x:1", "a:1,b:2"]))},
            optional={
                "security_protocol": st.sampled_from(["PLAINTEXT", "SASL_SSL", "sasl_plaintext", "NOPE"]),
                "sasl_mechanism": st.sampled_from(["PLAIN", "SCRAM-SHA-512", "X"]),
                "sasl_username": NAMES,
                "sasl_password": st.just(SENTINEL),
            },
        ),
    },
    optional={
        "schema_registry": st.fixed_dictionaries(
            {"url": st.just(f"http://user:{SENTINEL}@registry:8081")}, optional={"password": st.just(SENTINEL)}
        ),
        "flink": st.just(
            {"default": "f", "clusters": {"f": {"rest_url": "http://x:1", "sql_gateway_url": "http://x:2"}}}
        ),
        "connect": st.just({"default": "c", "clusters": {"c": {"rest_url": f"http://u:{SENTINEL}@connect:1"}}}),
    },
)
RULES = st.fixed_dictionaries(
    {},
    optional={
        "topics": st.fixed_dictionaries(
            {},
            optional={
                "naming_pattern": st.sampled_from(["^[a-z.]+$", "^(a+)+$", "(", "^(?=a)", "^(a)\\1$"]),
                "min_partitions": _maybe_wrong(st.integers(0, 4)),
            },
        ),
        "models": st.fixed_dictionaries({}, optional={"require_description": _maybe_wrong(st.booleans())}),
    },
)
STATE = st.fixed_dictionaries(
    {"backend": st.sampled_from(["local", "postgres", "s3"])},
    optional={
        "namespace": NAMES,
        "lock_timeout_seconds": _maybe_wrong(st.integers(-1, 60)),
        "postgres": st.fixed_dictionaries(
            {}, optional={"dsn_env": st.sampled_from(["PG_DSN", f"postgresql://u:{SENTINEL}@h/d", ""])}
        ),
    },
)
LIFECYCLE = st.fixed_dictionaries(
    {},
    optional={
        "connector_removals": st.lists(
            st.fixed_dictionaries({"logical_owner": NAMES, "name": NAMES, "cluster": NAMES}), max_size=1
        ),
        "gateway_rule_removals": st.lists(ANY_VALUE, max_size=1),
    },
)
ENVIRONMENT_FILE = st.fixed_dictionaries(
    {"runtime": RUNTIME},
    optional={
        "environment": st.fixed_dictionaries({}, optional={"protected": _maybe_wrong(st.booleans()), "name": NAMES}),
        "safety": st.fixed_dictionaries({}, optional={"require_reviewed_plan": _maybe_wrong(st.booleans())}),
        "deployment_state": STATE,
    },
)
PROJECT = st.fixed_dictionaries(
    {
        "project": st.fixed_dictionaries({"name": _maybe_wrong(st.sampled_from(["r", "demo"]))}),
        "runtime": RUNTIME,
    },
    optional={
        "sources": st.lists(SOURCE, max_size=3),
        "models": st.lists(MODEL, max_size=4),
        "tests": st.lists(TEST, max_size=2),
        "exposures": st.lists(EXPOSURE, max_size=2),
        "rules": RULES,
        "defaults": st.fixed_dictionaries(
            {"topic": st.fixed_dictionaries({}, optional={"partitions": _maybe_wrong(st.integers(-1, 8))})}
        ),
        "apiVersion": st.just("streamt.dev/v1alpha1"),
        "deployment_state": STATE,
        "lifecycle": LIFECYCLE,
        "safety": st.fixed_dictionaries({}, optional={"allow_destructive": _maybe_wrong(st.booleans())}),
    },
)
