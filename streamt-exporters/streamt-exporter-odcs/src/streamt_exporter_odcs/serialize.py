"""Canonical bytes of one contract: the same document always gives the same text.

Keys keep the mapping's fixed construction order (no dict in the document comes from user input
order), YAML is block style without aliases or line wrapping, JSON is two-space indented UTF-8. The
text is parsed back and compared with the document, so a value the format cannot round-trip is an
error instead of a silently different contract.
"""

from __future__ import annotations

import json
from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def serialize(document: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        parsed = json.loads(text)
    else:
        text = yaml.dump(
            document, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=4096
        )
        parsed = yaml.safe_load(text)
    if parsed != document:
        raise ValueError("the serialized text does not parse back to the same document")
    return text
