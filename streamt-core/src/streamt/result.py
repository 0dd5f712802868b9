"""What every command returns: data for machines, text for people, diagnostics for both.

No command prints. A command builds a ``Result`` and the renderer in
``streamt.output`` turns it into text or the JSON envelope, so that ``-o json``
is always exactly one document on stdout.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt.errors import Diagnostic


@attrs.frozen
class Result:
    """The outcome of one command.

    * ``command`` — the command path as the envelope names it (``docs odcs``).
    * ``data`` — the machine-readable answer (``-o json``'s ``data``).
    * ``text`` — the human rendering written to stdout in text mode.
    * ``errors``, ``warnings`` — ``Diagnostic`` tuples.
    * ``raw`` — the text is a document in its own right (YAML, JSONL, CSV):
      warnings then go to stderr so stdout stays parseable.
    * ``force_exit`` — overrides the derived ``exit_code`` (1 when there is
      any error, else 0), e.g. ``status --health`` reports data but fails.
    """

    command: str
    data: dict[str, Any] = attrs.field(factory=dict)
    text: str = ""
    errors: tuple[Diagnostic, ...] = ()
    warnings: tuple[Diagnostic, ...] = ()
    raw: bool = False
    force_exit: int | None = None

    @property
    def ok(self) -> bool:
        return not self.errors and not self.force_exit

    @property
    def exit_code(self) -> int:
        if self.force_exit is not None:
            return self.force_exit
        return 1 if self.errors else 0

    def envelope(self) -> dict[str, Any]:
        return {
            "status": "ok" if self.ok else "error",
            "command": self.command,
            "data": self.data,
            "errors": [d.to_json() for d in self.errors],
            "warnings": [d.to_json() for d in self.warnings],
        }
