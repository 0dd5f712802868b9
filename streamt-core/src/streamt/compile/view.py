"""The compiled view of one model, for ``show model`` (the seed's JSON example).

``sql`` is the rendered statement, ``topic`` the compiled topic block and each
section a plugin shows (``flink``: the declared job settings); ``artifacts`` lists what the model
compiles to, so a reader sees the same thing ``compile`` would write, and ``physical``
is its physical resource (``streamt.compile.physical``).
"""

from __future__ import annotations

from typing import Any

from streamt.compile.engine import compile_project
from streamt.compile.physical import physical_resources
from streamt.errors import Codes, StreamtError
from streamt.kind_names import KIND_TOPIC
from streamt.project import sections


def compiled_view(project: Any, model_name: str, plugins: Any = None) -> dict[str, Any]:
    """``{"sql", "topic"?, "flink"?, "artifacts", "physical"}`` for ``model_name`` (E102 if unknown).

    ``flink`` stands for each plugin section the model writes that its plugin shows (``ConfigSection.shown``).
    """
    model = project.model(model_name)
    if model is None:
        raise StreamtError(Codes.E102_MODEL_NOT_FOUND, f"Model '{model_name}' not found")
    compiled = compile_project(project, plugins, declarations=[model])
    view: dict[str, Any] = {
        "sql": model.rendered_sql if model.rendered_sql is not None else model.sql,
        "artifacts": [
            {"checksum": a.checksum, "identity": a.identity, "kind": a.kind, "ownership": a.ownership}
            for a in compiled.artifacts
        ],
    }
    view["physical"] = physical_resources(compiled.artifacts).get(model_name)
    topic = next((a for a in compiled.artifacts if a.kind == KIND_TOPIC), None)
    if topic is not None:
        view["topic"] = {k: v for k, v in topic.spec.items() if k != "name"}
    for name, value in sections.shown(model, sections.registry(plugins)).items():
        if value is not None:
            view[name] = {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value
    return view
