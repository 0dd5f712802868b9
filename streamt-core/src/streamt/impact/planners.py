"""The planner of each artifact kind, looked up once per report and only when a change needs one.

Building the table calls every plugin's ``streamt_planners`` hook (importing their planner modules),
so a report without a changed job never pays it.
"""

from __future__ import annotations

from typing import Any

from streamt.kinds import KindTable, planners
from streamt.plugins import get_plugins


class Planners:
    def __init__(self) -> None:
        self._table: KindTable[Any] | None = None

    def of(self, kind: str) -> Any:
        if self._table is None:
            self._table = planners(get_plugins())
        return self._table.get(kind)
