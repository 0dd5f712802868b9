"""What a provider saw live for one artifact."""

from __future__ import annotations

from typing import Any

import attrs

ABSENT = "absent"
PRESENT = "present"
UNAVAILABLE = "unavailable"
NOT_REQUESTED = "not_requested"


@attrs.frozen
class Observation:
    """The live truth about one ``(kind, identity)``.

    ``status`` is ``present`` (with ``spec``, normalized to the keys the
    artifact declares so comparisons have no noise), ``absent``,
    ``unavailable`` (the provider could not answer: planning must fail closed)
    or ``not_requested`` (external declarations are never read by default).
    """

    kind: str
    identity: str
    status: str
    spec: dict[str, Any] | None = None

    @property
    def exists(self) -> bool | None:
        if self.status == PRESENT:
            return True
        if self.status == ABSENT:
            return False
        return None
