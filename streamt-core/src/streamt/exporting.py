"""What every exporter command shares: one ending (print the document, or write it to ``--output-file``).

An exporter command loads and compiles the project (``streamt.sdk.load_and_compile``), builds its
document and findings, returns ``failure_result`` when anything is wrong (nothing is written or
printed), and otherwise ``document_result``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamt.errors import Codes, Diagnostic, ErrorCode, StreamtError
from streamt.fsutil import atomic_write
from streamt.result import Result


def write_output_file(output_file: str, text: str, code: ErrorCode | None = None) -> None:
    """Atomically replace ``output_file`` with ``text``.

    A failure is ``code`` (the exporter's own ``E5xx``; ``E905_OUTPUT_WRITE_FAILED`` by default)
    naming the file and the OS reason only; the previous file, if any, is unchanged.
    """
    try:
        atomic_write(Path(output_file), text.encode("utf-8"))
    except OSError as exc:
        raise StreamtError(
            code or Codes.E905_OUTPUT_WRITE_FAILED,
            f"Could not write '{output_file}': {exc.strerror or type(exc).__name__}. Nothing was changed.",
            "Check that the directory exists and is writable.",
        ) from None


def failure_result(command: str, errors: tuple[Diagnostic, ...], warnings: tuple[Diagnostic, ...] = ()) -> Result:
    """An exporter's refusal: its errors and warnings, no data; nothing was written or printed."""
    return Result(command, errors=errors, warnings=warnings)


def document_result(
    command: str,
    *,
    data: dict[str, Any],
    text: str,
    warnings: tuple[Diagnostic, ...] = (),
    output_file: str | None = None,
    code: ErrorCode | None = None,
) -> Result:
    """The document printed as raw text, or written atomically to ``output_file`` (then nothing is printed).

    ``data`` is the machine view either way; a write failure is ``code`` (``write_output_file``).
    """
    if output_file is not None:
        write_output_file(output_file, text, code)
        text = ""
    return Result(command, data=data, text=text, warnings=warnings, raw=True)
