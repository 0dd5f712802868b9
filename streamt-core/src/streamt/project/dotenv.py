"""``.env`` files (dsl.md §2.3): ``KEY=value`` lines, later files win, the process environment wins over all."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from streamt.project.yaml_io import read_text

_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def parse_dotenv(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if not match:
            continue
        name, raw = match.groups()
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            raw = raw[1:-1]
        elif " #" in raw:
            raw = raw.split(" #", 1)[0].rstrip()
        values[name] = raw
    return values


def effective_environment(root: Path, env_name: str | None, process: Mapping[str, str] | None = None) -> dict[str, str]:
    """``.env`` then ``.env.<env_name>`` then the real environment (highest priority)."""
    merged: dict[str, str] = {}
    names = [".env"] + ([f".env.{env_name}"] if env_name else [])
    for name in names:
        path = root / name
        if path.is_file():
            merged.update(parse_dotenv(read_text(path, name)))
    merged.update(os.environ if process is None else process)
    return merged
