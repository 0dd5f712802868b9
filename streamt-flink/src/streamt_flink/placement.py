"""Which models a Flink job runs: one answer shared by the compiler (``plugin``) and ``validation``."""

from __future__ import annotations

from typing import Any


def runs_on_flink(model: Any) -> bool:
    """Does a Flink job run this model? (Compile and validation must agree on the answer.)"""
    if model.materialized == "flink":
        return True
    # dsl.md section 9.2: a `topic` model with SQL gets a processing job unless another executor runs it.
    return model.materialized == "topic" and bool(model.sql) and model.executor == "flink"
