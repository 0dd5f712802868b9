"""Every relative link in docs/ resolves, and docs/README.md indexes every page.

Other engineers add pages concurrently; this keeps the index honest and the links valid.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
# [text](target) — skipping images' "!" is unnecessary: an image path must resolve too.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _relative_links(page: Path) -> list[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))  # code samples are not links
    links = []
    for target in _LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # http:, mailto:, in-page anchors
        links.append(target.split("#", 1)[0])
    return links


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_relative_links_resolve(page: Path) -> None:
    broken = [t for t in _relative_links(page) if t and not (page.parent / t).exists()]
    assert not broken, f"{page.relative_to(DOCS)}: broken links {broken}"


def test_index_lists_every_page() -> None:
    index = DOCS / "README.md"
    linked = {(index.parent / t).resolve() for t in _relative_links(index)}
    missing = [p.relative_to(DOCS).as_posix() for p in _pages() if p != index and p.resolve() not in linked]
    assert not missing, f"docs/README.md does not link: {missing}"


def test_link_pattern_finds_links() -> None:
    """The checker itself: a page with a broken link must be caught."""
    assert _LINK.findall("see [a](x.md) and [b](https://e.com) and [c](y.md#part)") == [
        "x.md",
        "https://e.com",
        "y.md#part",
    ]
