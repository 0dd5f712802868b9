"""Runtime blocks a declaration needs, keyed by effective materialization (dsl.md §5, §9.2).

These checks need only the parsed project, so core owns them and provider plugins need not repeat
them: E201 gateway, E202 flink, E204 sink config, E205 connect, E207 continuous tests, E208 other config.
Whether a plugin's section provides a materialization's runtime is the plugin's answer
(``Runtime.enables``); what is inside the section (cluster names ...) is checked by its owner.
"""

from __future__ import annotations

from streamt.errors import Codes, Diagnostic
from streamt.project import sections as plugin_sections
from streamt.project.model import Project


def check(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    runtime = project.runtime
    has_gateway, has_flink = runtime.enables("virtual_topic"), runtime.enables("flink")
    for model in project.models:
        location = project.locations.get(("model", model.name))
        if model.materialized == "virtual_topic" and not has_gateway:
            out.append(
                Diagnostic(
                    Codes.E201_GATEWAY_REQUIRED,
                    f"Model '{model.name}' is a virtual_topic but no Gateway is configured",
                    "Add runtime.conduktor.gateway (admin_url), or materialize it as flink/topic.",
                    location,
                )
            )
        if model.materialized == "flink" and not has_flink:
            out.append(
                Diagnostic(
                    Codes.E202_FLINK_REQUIRED,
                    f"Model '{model.name}' is materialized as flink but runtime.flink is not configured",
                    "Add runtime.flink with at least one cluster.",
                    location,
                )
            )
        if model.materialized == "sink":
            if not getattr(model.section("sink"), "connector", None):
                out.append(
                    Diagnostic(
                        Codes.E204_MISSING_SINK_CONFIG,
                        f"Sink model '{model.name}' has no connector configuration",
                        "Add sink: {connector: jdbc-sink, config: {...}}.",
                        location,
                    )
                )
            if runtime.connect is None:
                out.append(
                    Diagnostic(
                        Codes.E205_CONNECT_REQUIRED,
                        f"Sink model '{model.name}' needs runtime.connect",
                        "Add runtime.connect with a default cluster and its rest_url.",
                        location,
                    )
                )
        if model.executor == "kafka_streams" and runtime.kafka_streams is None:
            out.append(
                Diagnostic(
                    Codes.E208_MISSING_CONFIG,
                    f"Model '{model.name}' uses executor kafka_streams but runtime.kafka_streams is not configured",
                    "Add runtime.kafka_streams {image, docker_network, initial_offset} (see 'streamt runtime build').",
                    location,
                )
            )
    for test in project.tests:
        location = project.locations.get(("test", test.name))
        if test.type == "continuous" and not has_flink:
            out.append(
                Diagnostic(
                    Codes.E207_CONTINUOUS_TEST_WITHOUT_FLINK,
                    f"Continuous test '{test.name}' requires a Flink cluster",
                    "Add runtime.flink, or change the test type to schema or sample.",
                    location,
                )
            )
    return out + plugin_sections.check(project, "runtime")
