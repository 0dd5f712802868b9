"""Read commands name what exists on the cluster: the names ``list``, ``show``, ``lineage``, the docs
site, ``docs dictionary`` and the AsyncAPI and ODCS exporters report equal the compiled artifacts'
(the other exporters map compiled artifacts already).

The expected names are read from ``compile``'s manifest, by materialization (the alias of a virtual
topic, the connector of a sink, the job of a Flink model, the topic of a topic model), not through
the function the commands share. The extra project gives its virtual topic an alias that is neither
its model name nor its ``advanced.topic.name``, next to a sink, a model name that is no topic.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RESOURCE_KIND = {"virtual_topic": "gateway_rule", "sink": "connector", "flink": "flink_job", "topic": "topic"}


def alias_and_sink(root: Path) -> Path:
    from streamt_testing import write_project

    columns = [{"name": c, "type": "STRING"} for c in ("id", "tier", "email")]
    project = {
        "apiVersion": "streamt.dev/v1alpha1",
        "project": {"name": "shop"},
        "runtime": {
            "kafka": {"bootstrap_servers": "kafka.example:9092"},
            "connect": {"default": "main", "clusters": {"main": {"rest_url": "http://connect.example:8083"}}},
            "conduktor": {"gateway": {"admin_url": "http://gateway.example:8888"}},
        },
        "sources": [{"name": "orders_raw", "topic": "shop.orders.raw", "columns": columns}],
        "models": [
            {
                "name": "gold_orders_view",
                "sql": "SELECT id, email FROM {{ source('orders_raw') }} WHERE tier = 'GOLD'",
                "gateway": {"virtual_topic": {"name": "audit.shop.orders.gold"}},
                "advanced": {"topic": {"name": "shop.orders.gold.unused"}},
                "security": {
                    "classification": {"email": "confidential"},
                    "policies": [{"mask": {"column": "email", "method": "redact", "for_roles": ["analyst"]}}],
                },
            },
            {
                "name": "orders_to_db",
                "from": [{"source": "orders_raw"}],
                "sink": {
                    "connector": "debezium-jdbc-sink",
                    "config": {"connection.url": "jdbc:postgresql://db.example:5432/shop"},
                },
            },
        ],
        "exposures": [
            {
                "name": "audit_app",
                "type": "application",
                "role": "consumer",
                "consumes": [{"ref": "gold_orders_view", "columns": [{"name": "email"}]}],
            }
        ],
    }
    return write_project(root, {"stream_project.yml": project})


def projects() -> list[Any]:
    # Only projects: examples/ci holds CI recipes.
    found = sorted(path for path in EXAMPLES.iterdir() if (path / "stream_project.yml").is_file())
    examples = [pytest.param(path, id=path.name) for path in found]
    return [*examples, pytest.param(None, id="alias-and-sink")]


def expected(manifest: dict[str, Any], models: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """model -> {resource: {kind, name}, topic}, from the manifest's artifacts."""
    identities: dict[tuple[str, str], str] = {}
    for artifacts in manifest["artifacts"].values():
        for artifact in artifacts:
            identities.setdefault((artifact["name"], artifact["kind"]), artifact["identity"])
    out = {}
    for model in models:
        kind = RESOURCE_KIND[model["materialized"]]
        readable = "gateway_rule" if model["materialized"] == "virtual_topic" else "topic"
        out[model["name"]] = {
            "resource": {"kind": kind, "name": identities[(model["name"], kind)]},
            "topic": identities.get((model["name"], readable)),
        }
    return out


@pytest.mark.parametrize("example", projects())
def test_every_read_command_names_the_compiled_physical_resources(
    tmp_path: Path, streamt_cli: Any, streamt_cli_text: Any, example: Path | None
) -> None:
    root = tmp_path / "p"
    if example is None:
        alias_and_sink(root)
    else:
        shutil.copytree(example, root)
    assert streamt_cli("compile", "-p", root).ok
    manifest = json.loads((root / "generated" / "manifest.json").read_text())
    listed = streamt_cli("list", "models", "-p", root)
    assert listed.ok, listed.envelope
    names = expected(manifest, listed.data["items"])
    assert names, "every project here has models"
    for item in listed.data["items"]:
        assert {"resource": item["resource"], "topic": item["topic"]} == names[item["name"]], item

    nodes = {n["name"]: n for n in streamt_cli("lineage", "-p", root).data["nodes"]}
    dictionary = streamt_cli("docs", "dictionary", "-p", root).data["columns"]
    assert streamt_cli("docs", "generate", "-p", root).ok
    asyncapi = streamt_cli("docs", "asyncapi", "-p", root).data
    addresses = json.dumps(asyncapi)
    odcs = streamt_cli("docs", "odcs", "--contract-id", "c", "--status", "active", "-p", root).data["document"]
    physical_names = {o["name"]: o.get("physicalName") for o in odcs["schema"]}
    for model, want in names.items():
        shown = streamt_cli("show", "model", model, "-p", root).data
        assert {"resource": shown["resource"], "topic": shown["topic_name"]} == want, shown
        assert shown["executor"] is None or shown["materialized"] == "flink"
        assert {"resource": nodes[model]["resource"], "topic": nodes[model]["topic"]} == want
        assert {r["topic"] for r in dictionary if r["resource"] == model} <= {want["topic"]}
        assert physical_names[model] == want["topic"]
        page = next((root / "site" / "models").glob(f"{model}.html")).read_text()
        assert f"{want['resource']['kind']} {want['resource']['name']}" in page
        if want["topic"] is not None:
            assert want["topic"] in page and f'"{want["topic"]}"' in addresses
    if example is None:
        # The bug this guards against: a virtual topic shown under its model or topic name, a sink as a topic.
        assert names["gold_orders_view"]["topic"] == "audit.shop.orders.gold"
        sink = {"resource": {"kind": "connector", "name": "shop.default.orders_to_db"}, "topic": None}
        assert names["orders_to_db"] == sink
        view = [r for r in dictionary if r["resource"] == "gold_orders_view"]
        assert [(r["column"], r["provenance"]) for r in view] == [("id", "inferred"), ("email", "inferred")]
        shown = streamt_cli("show", "model", "gold_orders_view", "-p", root).data
        assert [(c["name"], c["provenance"]) for c in shown["columns"]] == [("id", "inferred"), ("email", "inferred")]
        # The site says which environment it describes, each column's classification and mask, and
        # the columns an exposure consumes.
        page = (root / "site" / "models" / "gold_orders_view.html").read_text()
        assert '<span class="environment">environment <code>default</code></span>' in page
        assert "<td><code>email</code></td><td>STRING</td><td>confidential</td><td>redact for analyst</td>" in page
        exposure = (root / "site" / "exposures" / "audit_app.html").read_text()
        assert 'href="../models/gold_orders_view.html">gold_orders_view</a></td><td><code>email</code>' in exposure


def test_a_project_that_does_not_compile_names_nothing_rather_than_guessing(tmp_path: Path, streamt_cli: Any) -> None:
    from streamt_testing import write_project

    project = {
        "project": {"name": "broken"},
        "runtime": {"kafka": {"bootstrap_servers": "kafka.example:9092"}},
        "models": [{"name": "f", "materialized": "flink", "sql": "SELECT * FROM {{ source('gone') }}"}],
    }
    root = write_project(tmp_path / "p", {"stream_project.yml": project})
    listed = streamt_cli("list", "models", "-p", root)
    assert listed.ok and [(i["topic"], i["resource"]) for i in listed.data["items"]] == [(None, None)]
    (warning,) = listed.envelope["warnings"]
    assert warning["code"] == "W901_PLUGIN_WARNING" and warning["message"].endswith("the project is not valid")
