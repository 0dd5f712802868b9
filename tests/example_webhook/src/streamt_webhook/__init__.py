"""``materialized: http_webhook``: each such model becomes a webhook route with its own settings.

A model writes ``http_webhook: {path: /hooks/orders, method: POST}`` (or under ``advanced``). The
plugin owns that key: it declares it as the model section ``model.http_webhook``, so streamt
checks its keys and types while loading the project and hands the compiler a ``WebhookSettings``.
"""

from __future__ import annotations

import attrs
from streamt.sdk import (
    Artifact,
    ArtifactKind,
    Codes,
    ConfigSection,
    Diagnostic,
    Materialization,
    Model,
    Project,
    hookimpl,
    model_section,
)

KIND = "http_webhook"
METHODS = ("POST", "PUT")


@attrs.frozen(kw_only=True)
class WebhookSettings:
    """The webhook route of a model.

    * ``path`` — the route's path on the webhook server (``/hooks/orders``).
    * ``method`` — the HTTP method it accepts: ``POST`` (default) or ``PUT``.
    """

    path: str
    method: str = "POST"


SETTINGS = ConfigSection(
    path=f"model.{KIND}",
    model=WebhookSettings,
    keys={"path": None, "method": None},
    extra="streamt-webhook",
    description="the webhook route of the model",
    shown=True,
)


def settings(model: Model) -> WebhookSettings | None:
    return model_section(model, KIND, WebhookSettings)


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [Materialization(name=KIND, description="Webhook route per model", extra="streamt-webhook")]


@hookimpl
def streamt_artifact_kinds() -> list[ArtifactKind]:
    # generated/webhooks/<model>.json, manifest "webhooks"; core sends http_webhook models to streamt_compile.
    return [
        ArtifactKind(
            name=KIND,
            directory="webhooks",
            manifest_key="webhooks",
            rank=66,
            title="Webhooks",
            materializations=(KIND,),
        )
    ]


@hookimpl
def streamt_config_sections() -> list[ConfigSection]:
    return [SETTINGS]


@hookimpl
def streamt_validate(project: Project) -> list[Diagnostic]:
    found = []
    for model in project.models:
        if model.materialized != KIND:
            continue
        route = settings(model)
        where = project.locations.get(("model", model.name))
        if route is None:
            message = f"Webhook model '{model.name}' has no http_webhook settings"
            found.append(Diagnostic(Codes.E208_MISSING_CONFIG, message, "Add http_webhook: {path: /hooks/...}.", where))
        elif route.method not in METHODS:
            message = f"Webhook model '{model.name}' sets http_webhook.method to {route.method!r}"
            found.append(Diagnostic(Codes.E501_PARSE_ERROR, message, f"Use one of: {', '.join(METHODS)}.", where))
    return found


@hookimpl
def streamt_compile(project: Project, declaration: Model) -> list[Artifact]:
    route = settings(declaration)
    if route is None:  # validate reports it
        return []
    spec = {
        "path": route.path,
        "method": route.method,
        "reads": sorted(project.topic_of(ref) or ref.name for ref in declaration.dependencies),
    }
    return [Artifact(KIND, declaration.name, declaration.name, spec, provider="streamt-webhook")]
