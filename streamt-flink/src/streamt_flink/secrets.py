"""The literal ``${VAR}`` text behind a secret runtime value, so generated SQL never holds the value.

The loader resolves ``runtime`` placeholders in memory; the compiled job must carry the
placeholder instead (dsl.md section 2.2), and the deployer resolves it at submission time. The
loader records the text each runtime value was written as (``Project.runtime_placeholder``). Only
a whole ``${VAR}`` is carried: a fallback (``${VAR:-text}``) is dropped, and a secret written as a
literal (or as text around a placeholder) is never copied either, since that text is the secret
or part of it: the job then carries ``DEFAULT_PLACEHOLDER``.
"""

from __future__ import annotations

import re
from typing import Any

DEFAULT_PLACEHOLDER = "${STREAMT_KAFKA_SASL_PASSWORD}"
_WHOLE_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")


def kafka_password_placeholder(project: Any) -> str | None:
    """``None`` when no SASL password is configured, else the placeholder to write."""
    if not project.runtime.kafka.sasl_password:
        return None
    written = project.runtime_placeholder("kafka.sasl_password") or ""
    whole = _WHOLE_PLACEHOLDER.fullmatch(written.strip())
    return f"${{{whole.group(1)}}}" if whole else DEFAULT_PLACEHOLDER
