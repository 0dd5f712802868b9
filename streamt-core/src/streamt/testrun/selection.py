"""Which tests ``streamt test`` runs, and in which order.

``--model`` and ``--type`` narrow the project's tests; the order is fixed (schema,
then sample, then continuous, each in declaration order) so output is the same on
every run. A ``--model`` that names no model or source is an error, not an empty run.
"""

from __future__ import annotations

from typing import Any

from streamt.errors import Codes, StreamtError
from streamt.testrun.kinds import TYPE_ORDER


def select_tests(project: Any, model: str | None, test_type: str | None) -> tuple[Any, ...]:
    if model is not None and project.model(model) is None and project.source(model) is None:
        raise StreamtError(
            Codes.E102_MODEL_NOT_FOUND,
            f"--model '{model}' names no model or source of this project.",
            "Run `streamt list models` (or `list sources`) for the names.",
        )
    chosen = [
        t for t in project.tests if (model is None or t.model == model) and (test_type is None or t.type == test_type)
    ]
    rank = {name: i for i, name in enumerate(TYPE_ORDER)}
    return tuple(sorted(chosen, key=lambda t: rank.get(t.type, len(rank))))
