"""What every exporter command shares: writing its document to ``--output-file``."""

from __future__ import annotations

from pathlib import Path

from streamt.errors import Codes, ErrorCode, StreamtError
from streamt.fsutil import atomic_write


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
