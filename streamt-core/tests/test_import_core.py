"""Import's core rules with a fake discoverer: output path, staged validation, exclusive creation."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from streamt import hookimpl
from streamt.discovery.model import NOT_FOUND, RESOLVED, Enrichment, SchemaLookup, TopicMetadata

PROJECT = {
    "stream_project.yml": {"project": {"name": "imp"}, "runtime": {"kafka": {"bootstrap_servers": "fake:9092"}}},
}


class FakeDiscoverer:
    name = "kafka"
    kinds = ("topic",)
    enriched: ClassVar[list[list[str]]] = []

    def __init__(self, topics: list[TopicMetadata]) -> None:
        self.topics = topics

    def list_topics(self) -> list[TopicMetadata]:
        return list(self.topics)

    def enrich(self, names: list[str], requested: bool = True) -> Enrichment:
        FakeDiscoverer.enriched.append(list(names))
        lookups = {
            n: SchemaLookup(RESOLVED, f"{n}-value", 3, 7, "avro", (("id", "STRING"),))
            if n.endswith("avro")
            else SchemaLookup(NOT_FOUND, f"{n}-value")
            for n in names
        }
        return Enrichment(lookups, "available", len(names))


def _plugin(topics: list[TopicMetadata]) -> Any:
    class Plugin:
        @hookimpl
        def streamt_source_discoverers(self, runtime: Any) -> list[Any]:
            return [FakeDiscoverer(topics)]

    return Plugin()


TOPICS = [
    TopicMetadata("orders.avro", 3, 1),
    TopicMetadata("payments", 1, 1),
    TopicMetadata("__consumer_offsets", 50, 1),
    TopicMetadata("_schemas", 1, 1),
]


@pytest.fixture
def project(streamt_project, streamt_plugin):
    streamt_plugin(_plugin(TOPICS), name="fake-discoverer", isolated=True)
    return streamt_project(PROJECT)


def test_preview_skips_internal_topics_and_orders_by_topic(project, streamt_cli) -> None:
    FakeDiscoverer.enriched.clear()
    out = streamt_cli("import", "-p", project, "--dry-run")
    assert out.ok
    assert [r["topic"] for r in out.data["resources"]] == ["orders.avro", "payments"]
    assert out.data["counts"]["internal_skipped"] == 2 and out.data["discovery"]["internal_topics_skipped"] == 2
    assert FakeDiscoverer.enriched == [["orders.avro", "payments"]]  # internal topics never looked up
    assert out.data["declarations"][0] == {
        "name": "orders_avro",
        "topic": "orders.avro",
        "ownership": {"mode": "external"},
        "schema": {"registry": "confluent", "subject": "orders.avro-value", "version": 3, "format": "avro"},
        "columns": [{"name": "id", "type": "STRING"}],
    }
    assert not (project / "sources").exists()


def test_excluded_and_declared_topics_are_not_looked_up(project, streamt_cli) -> None:
    FakeDiscoverer.enriched.clear()
    out = streamt_cli("import", "-p", project, "--exclude", "orders.*", "--dry-run")
    assert out.ok and FakeDiscoverer.enriched == [["payments"]] and out.data["counts"]["filtered_out"] == 1
    assert streamt_cli("import", "-p", project).ok
    again = streamt_cli("import", "-p", project, "--output-file", "sources/second.yml")
    assert again.ok and again.data["created_files"] == [] and again.data["counts"]["already_declared"] == 2


@pytest.mark.parametrize(
    "target",
    ["models/x.yml", "sources/nested/x.yml", "sources/../x.yml", "sources/x.txt", "sources/.hidden.yml", "x.yml"],
)
def test_output_outside_sources_is_refused_before_discovery(project, streamt_cli, target) -> None:
    FakeDiscoverer.enriched.clear()
    out = streamt_cli("import", "-p", project, "--output-file", target)
    assert out.error_codes == ["E704_IMPORT_PATH_INVALID"] and FakeDiscoverer.enriched == []


def test_a_symlinked_sources_directory_is_refused(project, streamt_cli, tmp_path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / "sources").symlink_to(tmp_path / "elsewhere")
    assert streamt_cli("import", "-p", project).error_codes == ["E704_IMPORT_PATH_INVALID"]
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_new_validation_errors_are_refused_and_nothing_is_written(streamt_project, streamt_plugin, streamt_cli) -> None:
    streamt_plugin(_plugin(TOPICS), name="fake-discoverer", isolated=True)
    files = {
        "stream_project.yml": {**PROJECT["stream_project.yml"], "rules": {"sources": {"require_description": True}}}
    }
    root = streamt_project(files)
    out = streamt_cli("import", "-p", root)
    assert out.error_codes == ["E705_IMPORT_VALIDATION_FAILED"] and not (root / "sources").exists()
    assert out.envelope["errors"][0]["validation_errors"]


def test_collision_with_an_existing_model_name(streamt_project, streamt_plugin, streamt_cli) -> None:
    streamt_plugin(_plugin(TOPICS), name="fake-discoverer", isolated=True)
    files = {
        **PROJECT,
        "models/m.yml": {"models": [{"name": "payments", "advanced": {"topic": {"name": "payments.v2"}}}]},
    }
    out = streamt_cli("import", "-p", streamt_project(files))
    assert out.error_codes == ["E703_IMPORT_NAME_COLLISION"]


def test_a_write_failure_is_e706_and_leaves_no_file(project, streamt_cli, monkeypatch) -> None:
    import streamt.fsutil

    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(streamt.fsutil, "create_exclusive", broken)
    out = streamt_cli("import", "-p", project)
    assert out.error_codes == ["E706_IMPORT_WRITE_FAILED"] and not list((project / "sources").iterdir())


def test_incomplete_metadata_is_refused(streamt_project, streamt_plugin, streamt_cli) -> None:
    streamt_plugin(_plugin([TopicMetadata("broken", 0, 0, complete=False)]), name="fake-discoverer", isolated=True)
    out = streamt_cli("import", "-p", streamt_project(PROJECT))
    assert out.error_codes == ["E701_IMPORT_DISCOVERY_FAILED"]
