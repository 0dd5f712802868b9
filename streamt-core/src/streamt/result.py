"""What every command returns: data for machines, text for people, diagnostics for both.

No command prints. A command builds a ``Result`` and the renderer in
``streamt.output`` turns it into text or the JSON envelope, so that ``-o json``
is always exactly one document on stdout.
"""

from __future__ import annotations

from typing import Any

from streamt.errors import Diagnostic
from streamt.values import Value

# Terraform's -detailed-exitcode convention: 0 no changes, 1 error, 2 changes present.
CHANGES_PRESENT = 2


class Result(Value):
    """The outcome of one command.

    * ``command`` — the command path as the envelope names it (``docs odcs``).
    * ``data`` — the machine-readable answer (``-o json``'s ``data``).
    * ``text`` — the human rendering written to stdout in text mode.
    * ``errors``, ``warnings`` — ``Diagnostic`` tuples.
    * ``raw`` — the text is a document in its own right (YAML, JSONL, CSV):
      warnings then go to stderr so stdout stays parseable.
    * ``force_exit`` — overrides the derived ``exit_code`` (1 when there is
      any error, else 0), e.g. ``status --health`` reports data but fails.
      ``CHANGES_PRESENT`` is the one non-zero exit that is still a success
      (``plan --detailed-exitcode``): the envelope stays ``ok``.
    """

    __slots__ = _fields = ("command", "data", "text", "errors", "warnings", "raw", "force_exit")

    command: str
    data: dict[str, Any]
    text: str
    errors: tuple[Diagnostic, ...]
    warnings: tuple[Diagnostic, ...]
    raw: bool
    force_exit: int | None

    def __init__(
        self,
        command: str,
        data: dict[str, Any] | None = None,
        text: str = "",
        errors: tuple[Diagnostic, ...] = (),
        warnings: tuple[Diagnostic, ...] = (),
        raw: bool = False,
        force_exit: int | None = None,
    ) -> None:
        self._fill(command, {} if data is None else data, text, errors, warnings, raw, force_exit)

    @property
    def ok(self) -> bool:
        """Whether the command succeeded (no errors; a forced exit only for the detailed exit code)."""
        return not self.errors and self.force_exit in (None, 0, CHANGES_PRESENT)

    @property
    def exit_code(self) -> int:
        """The process exit code: the forced one, else 1 with errors, else 0."""
        if self.force_exit is not None:
            return self.force_exit
        return 1 if self.errors else 0

    def envelope(self) -> dict[str, Any]:
        """The ``-o json`` envelope: status, command, data, errors, warnings."""
        return {
            "status": "ok" if self.ok else "error",
            "command": self.command,
            "data": self.data,
            "errors": [d.to_json() for d in self.errors],
            "warnings": [d.to_json() for d in self.warnings],
        }
