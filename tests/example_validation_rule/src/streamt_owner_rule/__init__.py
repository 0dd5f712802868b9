"""A house rule for ``streamt validate``: every model names its owning team (``owner: team-...``)."""

from __future__ import annotations

from streamt.sdk import Diagnostic, ErrorCode, Project, hookimpl

MODEL_OWNER_MISSING = ErrorCode("E960_MODEL_OWNER_MISSING", "A model names no owning team", "streamt-owner-rule")


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [MODEL_OWNER_MISSING]


@hookimpl
def streamt_validate(project: Project) -> list[Diagnostic]:
    return [
        Diagnostic(
            MODEL_OWNER_MISSING,
            f"Model '{model.name}' names no owning team.",
            "Add `owner: team-<name>` to the model.",
            # The model's file; validate turns it into file:line:col.
            project.locations.get(("model", model.name)),
            details={"model": model.name},
        )
        for model in project.models
        if not (model.owner or "").startswith("team-")
    ]
