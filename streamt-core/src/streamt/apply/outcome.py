"""What a deployer reports for one action: the truth, including "unknown".

* ``done`` — the provider confirmed the change;
* ``failed`` — the provider refused it and nothing changed;
* ``unknown`` — the change may or may not have happened (no answer, a
  partial change, a resource missing from the response). Core never treats
  it as success and never retries it; it keeps a recovery marker.
"""

from __future__ import annotations

from typing import Any

import attrs

DONE, FAILED, UNKNOWN = "done", "failed", "unknown"


@attrs.frozen
class Outcome:
    """A deployer's report for one action.

    * ``status`` — ``done``, ``failed`` or ``unknown`` (``DONE`` ...).
    * ``error`` — the provider's error class (``InvalidConfigurationError``)
      or an HTTP status name, never its message (which may carry secrets).
    * ``attributes`` — secret-neutral facts for the ownership record of a
      ``done`` action (a new Flink job id); ``None`` keeps the action's.
    """

    status: str = attrs.field(validator=attrs.validators.in_((DONE, FAILED, UNKNOWN)))
    # The provider's error class (``InvalidConfigurationError``), never its message.
    error: str | None = None
    # Secret-neutral facts for the ownership record of a ``done`` action (a new Flink job id);
    # ``None`` keeps what the plan's action carries.
    attributes: dict[str, Any] | None = attrs.field(default=None, hash=False)

    @property
    def ok(self) -> bool:
        """Whether the action is ``done``."""
        return self.status == DONE


OK = Outcome(DONE)
