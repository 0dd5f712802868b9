"""What rendering one model's SQL gives (``Rendered``), and the longest SQL it may give.

Shared by the direct substitution in ``streamt.render`` and the Jinja path in ``streamt.render_jinja``,
so that neither imports the other (and plain SQL never imports Jinja).
"""

from __future__ import annotations

import attrs

from streamt.refs import Ref

# The longest SQL a model may render to (no real query is longer; it would be copied into every artifact).
MAX_SQL_CHARS = 1_000_000


@attrs.frozen
class Rendered:
    """``sql`` is ``None`` when rendering failed; ``error`` then says why (``line`` is 1-based)."""

    sql: str | None
    dependencies: tuple[Ref, ...]
    error: str | None = None
    error_kind: str | None = None  # "syntax", "env", "config", "limit" (a sandbox resource cap)
    line: int | None = None
    missing_env: tuple[str, ...] = ()
