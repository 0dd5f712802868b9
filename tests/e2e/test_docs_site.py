"""``streamt docs generate``: the site's files, deterministic bytes, escaping, safe replacement, the plugin hook."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamt import hookimpl
from streamt.docs_site import MARKER, DocsNodeDetail, DocsPage, DocsSection

sys.path.insert(0, str(Path(__file__).parent))
from docs_site_project import generate

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
HOSTILE = "<script>alert(1)</script> & </script>"

SMALL = {
    "stream_project.yml": {
        "project": {"name": "shop", "description": f"Shop pipeline {HOSTILE}"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [
            {
                "name": "orders_raw",
                "topic": "shop.orders.raw",
                "owner": "team-checkout",
                "tags": ["pii"],
                "description": HOSTILE,
                "columns": [{"name": "email", "type": "STRING", "classification": "confidential"}],
            }
        ],
        "models": [
            {
                "name": "orders_clean",
                "materialized": "topic",
                "description": "Clean orders",
                "tags": ["core", "pii"],
                "sql": "SELECT email FROM {{ source('orders_raw') }} WHERE email <> ''",
                "columns": [{"name": "email", "type": "STRING", "description": "who ordered"}],
            }
        ],
        "tests": [
            {
                "name": "orders_ok",
                "model": "orders_clean",
                "type": "schema",
                "assertions": [{"not_null": {"columns": ["email"]}}],
            }
        ],
        "exposures": [
            {
                "name": "billing",
                "type": "application",
                "role": "consumer",
                "owner": "team-billing",
                "url": "https://billing.example/x",
                "consumes": [{"ref": "orders_clean"}],
            }
        ],
    }
}


def read_tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_quickstart_site_has_an_index_a_graph_and_a_page_per_resource(streamt_cli, tmp_path: Path) -> None:
    out = tmp_path / "site"
    outcome = streamt_cli("docs", "generate", "-p", QUICKSTART, "--output", out)
    assert outcome.ok, outcome.envelope
    listing = streamt_cli("-o", "json", "list", "models", "-p", QUICKSTART).data["items"]
    files = read_tree(out)
    assert {"index.html", "lineage.html", "assets/site.css", "assets/index.js", "assets/lineage.js", MARKER} <= set(
        files
    )
    for model in listing:
        page = files[f"models/{model['name']}.html"].decode()
        assert f"<h1>{model['name']}</h1>" in page
        for parent in model["upstream"]:
            assert f">{parent}</a>" in page  # upstream links, the page's own neighbourhood graph
    assert outcome.data["pages"] == sum(1 for name in files if name.endswith(".html"))
    assert outcome.data["output_dir"] == str(out)
    # Progress on stderr: rendering, then writing, each started and done (stdout is the one envelope).
    steps = [line.split(" ", 1)[1].split(" (")[0] for line in outcome.stderr.splitlines()]
    assert [step.split(" ")[:3] for step in steps] == [
        ["start", "render", "site"],
        ["done", "render", "site"],
        ["start", "write", "site"],
        ["done", "write", "site"],
    ], outcome.stderr


def test_same_project_same_bytes_and_a_rerun_replaces_the_whole_folder(streamt_cli, tmp_path: Path) -> None:
    project = tmp_path / "p"
    generate(project, 120)
    first, second = tmp_path / "a", tmp_path / "b"
    assert streamt_cli("docs", "generate", "-p", project, "--output", first).ok
    (first / "stale.html").write_text("left over")
    assert streamt_cli("docs", "generate", "-p", project, "--output", second).ok
    assert streamt_cli("docs", "generate", "-p", project, "--output", first).ok
    assert read_tree(first) == read_tree(second)
    assert not (first / "stale.html").exists()
    assert (first / "models" / "m_7.html").is_file() and (first / "tests" / "t_100.html").is_file()


def test_default_output_is_site_in_the_project(streamt_cli, streamt_project) -> None:
    project = streamt_project(SMALL)
    outcome = streamt_cli("docs", "generate", "-p", project)
    assert outcome.ok, outcome.envelope
    assert (project / "site" / "index.html").is_file()


def test_everything_declared_is_escaped_and_the_site_needs_no_network(streamt_cli, streamt_project, tmp_path) -> None:
    out = tmp_path / "site"
    assert streamt_cli("docs", "generate", "-p", streamt_project(SMALL), "--output", out).ok
    files = {k: v.decode() for k, v in read_tree(out).items()}
    for name, text in files.items():
        assert "<script>alert" not in text, name
        # Scripts, styles and links only point inside the folder; a declared URL is shown as text.
        for ref in re.findall(r'(?:src|href)="([^"]*)"', text):
            assert not re.match(r"^[a-z]+:|^//", ref), (name, ref)
    source = files["sources/orders_raw.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;/script&gt;" in source
    assert "confidential" in source and "team-checkout" in source
    model = files["models/orders_clean.html"]
    assert "WHERE email &lt;&gt; &#39;&#39;" in model  # the rendered SQL
    assert "<td>topic</td><td><code>orders_clean</code></td>" in model  # its compiled artifact
    assert 'href="../tests/orders_ok.html"' in model and 'href="../exposures/billing.html"' in model
    assert "https://billing.example/x" in files["exposures/billing.html"]
    graph = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', files["lineage.html"], re.S)
    assert graph is not None and "</" not in graph.group(1)
    index = files["index.html"]
    rows = re.search(r'<script id="index-data" type="application/json">(.*?)</script>', index, re.S)
    assert rows is not None and "</" not in rows.group(1)
    by_name = {row[0]: row for row in json.loads(rows.group(1))}
    assert by_name["orders_clean"] == ["orders_clean", "model", "topic", "", ["core", "pii"], "Clean orders",
                                       "models/orders_clean.html"]  # fmt: skip
    assert by_name["orders_raw"][5].startswith("<script>alert(1)")  # data, escaped by the script that draws it
    assert '<option value="pii">pii</option>' in index


def test_a_folder_streamt_did_not_write_is_never_replaced(streamt_cli, streamt_project, tmp_path) -> None:
    project = streamt_project(SMALL)
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    for target in (mine, project, project.parent):
        outcome = streamt_cli("docs", "generate", "-p", project, "--output", target)
        assert outcome.error_codes == ["E905_OUTPUT_WRITE_FAILED"], target
    assert (mine / "keep.txt").read_text() == "mine"
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert streamt_cli("docs", "generate", "-p", project, "--output", afile).error_codes == ["E905_OUTPUT_WRITE_FAILED"]


def test_an_invalid_project_is_refused_before_anything_is_written(streamt_cli, streamt_project, tmp_path) -> None:
    broken = {
        "stream_project.yml": {
            **SMALL["stream_project.yml"],
            "exposures": [{"name": "billing", "type": "application", "consumes": [{"ref": "nope"}]}],
        }
    }
    out = tmp_path / "site"
    outcome = streamt_cli("docs", "generate", "-p", streamt_project(broken), "--output", out)
    assert not outcome.ok and outcome.error_codes
    assert not out.exists()


def test_plugins_add_pages_and_details_as_escaped_text(streamt_cli, streamt_plugin, streamt_project, tmp_path) -> None:
    seen: list[str] = []

    @hookimpl
    def streamt_docs_site(project):
        seen.append(project.name)
        return [
            DocsPage("runbook", "On-call <runbook>", (DocsSection("Paging", "Call <b>ops</b>"),)),
            DocsNodeDetail("model", "orders_clean", DocsSection("SLO", rows=[("p99 latency", "< 2 s")])),
            DocsNodeDetail("model", "not_declared", DocsSection("ignored")),
        ]

    streamt_plugin(SimpleNamespace(streamt_docs_site=streamt_docs_site), name="docs-extra")
    out = tmp_path / "site"
    assert streamt_cli("docs", "generate", "-p", streamt_project(SMALL), "--output", out).ok
    assert seen == ["shop"]
    page = (out / "pages" / "runbook.html").read_text()
    assert "On-call &lt;runbook&gt;" in page and "Call &lt;b&gt;ops&lt;/b&gt;" in page
    assert 'href="pages/runbook.html"' in (out / "index.html").read_text()
    model = (out / "models" / "orders_clean.html").read_text()
    assert "<h2>SLO</h2>" in model and "<th>p99 latency</th><td>&lt; 2 s</td>" in model


@pytest.mark.parametrize(("name", "expected"), [("orders", "orders"), ("a.b/c", "a~2Eb~2Fc"), ("é", "~C3~A9")])
def test_page_names_are_safe_and_distinct(name: str, expected: str) -> None:
    from streamt.docs_paths import slug

    assert slug(name) == expected


def test_model_pages_show_where_columns_come_from(streamt_cli, streamt_project, tmp_path) -> None:
    project = streamt_project({"stream_project.yml": {
        "project": {"name": "lin"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"},
                    "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://localhost:8081"}}}},
        "sources": [{"name": "orders", "topic": "orders.raw",
                     "columns": [{"name": "customer_id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}]}],
        "models": [{"name": "totals", "materialized": "flink", "advanced": {"flink": {"state_ttl_ms": 60000}},
                    "sql": 'SELECT customer_id, SUM(amount) AS total, UPPER(customer_id) AS cust '
                           'FROM {{ source("orders") }} GROUP BY customer_id'}],
    }})  # fmt: skip
    out = tmp_path / "site"
    assert streamt_cli("docs", "generate", "-p", project, "--output", out).ok
    page = (out / "models" / "totals.html").read_text()
    # classification, mask and description are empty
    assert (
        "<td><code>total</code></td><td>BIGINT</td><td></td><td></td><td></td><td>orders.amount via SUM(amount)</td>"
        in page
    )
    assert "<td><code>cust</code></td><td>unknown</td>" in page  # not guessed
