"""The planner of each artifact kind, looked up once per report and only when a change needs one.

Building the table calls every plugin's ``streamt_planners`` hook (importing their planner modules),
so a report without a changed job never pays it.
"""

from __future__ import annotations

from collections.abc import Mapping

from streamt.sdk import Planner, installed_planners


class Planners:
    def __init__(self) -> None:
        self._table: Mapping[str, Planner] | None = None

    def of(self, kind: str) -> Planner | None:
        if self._table is None:
            self._table = installed_planners()
        return self._table.get(kind)
