"""What a test reads: the model or source it names, resolved once from the project."""

from __future__ import annotations

from typing import Any

from streamt.testrun.model import Target

SENSITIVE_CLASSES = frozenset({"sensitive", "highly_sensitive"})


def target_of(project: Any, name: str) -> Target | None:
    """The model (first) or source called ``name``; ``None`` when neither exists."""
    model = project.model(name)
    if model is not None:
        sensitive = {c.name for c in model.columns if c.classification in SENSITIVE_CLASSES}
        if model.security is not None:
            sensitive |= {col for col, level in model.security.classification.items() if level in SENSITIVE_CLASSES}
            sensitive |= {p.column for p in model.security.policies if p.kind == "mask" and p.column}
        return Target(
            kind="model",
            name=model.name,
            topic=model.topic_name,
            columns=tuple(model.columns),
            key_column=model.key,
            sensitive=frozenset(sensitive),
        )
    source = project.source(name)
    if source is None:
        return None
    columns = tuple(source.columns) or (tuple(source.schema.fields) if source.schema else ())
    schema = source.schema
    return Target(
        kind="source",
        name=source.name,
        topic=source.topic,
        columns=columns,
        # dsl.md section 8.1: the subject defaults to the topic's value subject.
        subject=(schema.subject or f"{source.topic}-value") if schema is not None else None,
        schema_format=(schema.format or "avro").lower() if schema is not None else None,
        sensitive=frozenset(c.name for c in columns if c.classification in SENSITIVE_CLASSES),
    )
