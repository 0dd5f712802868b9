"""The project DSL: load ``stream_project.yml`` + declaration folders into one immutable ``Project``.

Public API (everything a compiler or command needs)::

    from streamt.project import load_project, Project

    project = load_project("path/to/project", env="dev")   # env: --env; None -> STREAMT_ENV / "default"
    project.name, project.env                     # project name, effective environment name
    project.info.version, project.api_version     # project.version ("0.0.0" default); apiVersion or None
    project.sources / .models / .tests / .exposures        # tuples of Source / Model / Test / Exposure
    project.source(name), project.model(name), project.test(name), project.exposure(name)  # or None
    project.runtime                               # Runtime for the selected environment:
        .kafka (KafkaRuntime, .internal_servers), .schema_registry,
        .section("connect") (a plugin's section: its own class), .enables("flink")
    project.defaults                              # Defaults; .partitions, .replication_factor, .topic_config,
                                                  #   .sample_size resolve the documented precedence
    project.rules, project.safety, project.environment (.protected, .confirm_apply, .multi)
    project.deployment_state (.backend "local"|"postgres", .namespace, .section("postgres"))
    project.lifecycle.entries("connector_removals")  # tombstones of a plugin's RemovalKind, in file order
    project.runtime_placeholder("kafka.sasl_password")  # "${KAFKA_PW}" as written, or None if a literal;
                                                  #   write this (never the resolved secret) into artifacts
    project.topic_of(ref)                         # physical topic of a source/model reference
    project.downstream(name)                      # models depending directly on a source/model

    model.materialized           # effective materialization: topic | virtual_topic | flink | sink
    model.declared_materialized  # what the file said (or None)
    model.executor               # "flink" | "kafka_streams"
    model.topic_name             # physical topic (advanced.topic.name or the model name)
    model.topic / .event_time / .security / .contract  # shorthands merged
    model.section("flink")       # a plugin section (flink, sink, gateway ...): its owner's value
    model.rendered_sql           # SQL with source()/ref() replaced by physical topic names
    model.dependencies           # tuple[Ref]: the source()/ref() calls made (or `from` without SQL)
    model.upstream               # their names
    model.ownership.mode / source.ownership.mode   # managed (model default) | external (source default) | adopted

``load_project`` raises ``streamt.errors.StreamtError`` (E501/E502/E503) when the files cannot be read
into a project. Semantic checks (references, cycles, governance, runtime requirements) live in
``streamt.validation.validate_project(project)``; compile only valid projects.
"""

from streamt.project.loader import API_VERSION, load_project
from streamt.project.model import (
    Column,
    Environment,
    Exposure,
    ExposureRef,
    Model,
    Notice,
    Project,
    Ref,
    Runtime,
    Source,
    Test,
)

__all__ = [
    "API_VERSION",
    "Column",
    "Environment",
    "Exposure",
    "ExposureRef",
    "Model",
    "Notice",
    "Project",
    "Ref",
    "Runtime",
    "Source",
    "Test",
    "load_project",
]
