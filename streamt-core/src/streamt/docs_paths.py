"""Where ``docs generate`` puts a declaration's page: the one file-naming rule of the docs site.

Kept apart from ``streamt.docs_site`` (which loads Jinja) so validation can check that every name
fits a file name without importing the site's renderer.
"""

from __future__ import annotations

import re

FOLDERS = {"source": "sources", "model": "models", "test": "tests", "exposure": "exposures"}
_SAFE = re.compile(r"[A-Za-z0-9_-]")


def slug(name: str) -> str:
    """A file name for ``name``: safe characters kept, every other byte as ``~XX`` (injective)."""
    return "".join(c if _SAFE.fullmatch(c) else "".join(f"~{b:02X}" for b in c.encode()) for c in name) or "~"


def page_path(kind: str, name: str) -> str:
    return f"{FOLDERS[kind]}/{slug(name)}.html"
