"""The worked example of docs/plugins.md, installed from its own source tree into a fresh venv."""

from __future__ import annotations

from pathlib import Path

EXAMPLE_PLUGIN = Path(__file__).resolve().parents[1] / "example_plugin"

PROJECT = """\
project:
  name: shop
runtime:
  kafka:
    bootstrap_servers: localhost:9092
models:
  - name: orders_clean
    materialized: topic
    topic: {name: orders.clean, partitions: 6, replication_factor: 3}
"""


def test_the_example_plugin_is_discovered_and_usable(make_venv, tmp_path: Path) -> None:
    venv = make_venv(EXAMPLE_PLUGIN)
    listing = venv.envelope("plugins")
    assert listing["status"] == "ok", listing["errors"]
    (plugin,) = listing["data"]["plugins"]
    assert (plugin["name"], plugin["distribution"], plugin["version"]) == (
        "topics-csv",
        "streamt-topics-csv",
        "1.0.0",
    )
    assert plugin["hooks"] == ["streamt_exporters"]

    (tmp_path / "stream_project.yml").write_text(PROJECT)
    exported = venv.envelope("export", "topics-csv", "--project-dir", tmp_path)
    assert exported["status"] == "ok", exported["errors"]
    assert exported["data"]["topics"] == [
        {"topic": "orders.clean", "partitions": 6, "replication_factor": 3, "owner_model": "orders_clean"}
    ]
    text = venv.run("export", "topics-csv", "--project-dir", tmp_path)
    assert text.stdout == "topic,partitions,replication_factor,owner_model\norders.clean,6,3,orders_clean\n"
    assert "topics-csv" in venv.run("export", "--help").stdout
