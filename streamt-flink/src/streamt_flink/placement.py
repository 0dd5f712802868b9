"""Which models a Flink job runs: one answer shared by the compiler (``plugin``) and ``validation``."""

from __future__ import annotations

from typing import Any

from streamt.sdk import produces

from streamt_flink.kinds import FLINK_JOB


def runs_on_flink(model: Any) -> bool:
    """Does a Flink job run this model? The registration of ``FLINK_JOB`` says (core dispatches by it too)."""
    return produces(FLINK_JOB, model)
