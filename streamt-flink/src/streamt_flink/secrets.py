"""The literal ``${VAR}`` text behind a secret runtime value, so generated SQL never holds the value.

The loader resolves ``runtime`` placeholders in memory; the compiled job must carry the
placeholder instead (dsl.md section 2.2), and the deployer resolves it at submission time. The
placeholder is read back from the file that declared the runtime block. A secret written as a
literal in the file is never copied either: the job then carries ``DEFAULT_PLACEHOLDER``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_PLACEHOLDER = "${STREAMT_KAFKA_SASL_PASSWORD}"


def _runtime_file(project: Any) -> Path | None:
    root = Path(project.root)
    if project.environment.multi:
        candidates = [root / "environments" / f"{project.env}{suffix}" for suffix in (".yml", ".yaml")]
    else:
        candidates = [root / "stream_project.yml", root / "stream_project.yaml"]
    return next((path for path in candidates if path.is_file()), None)


def kafka_password_placeholder(project: Any) -> str | None:
    """``None`` when no SASL password is configured, else the placeholder to write."""
    if not project.runtime.kafka.sasl_password:
        return None
    import yaml

    path = _runtime_file(project)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) if path else None
    except (OSError, yaml.YAMLError):
        document = None
    raw = ((document or {}).get("runtime") or {}).get("kafka") or {}
    value = raw.get("sasl_password") if isinstance(raw, dict) else None
    if isinstance(value, str) and value.strip().startswith("${") and value.strip().endswith("}"):
        return value.strip()
    return DEFAULT_PLACEHOLDER
