"""What a plugin may add to the docs site through ``streamt_docs_site``.

Plugins contribute text, never markup: every string is escaped when rendered, so a plugin cannot
break the page or inject script into a site people open from disk.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs


def _pairs(value: Iterable[tuple[object, object]]) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in value)


@attrs.frozen
class DocsSection:
    """A heading with a paragraph and/or a two-column table of ``(label, value)`` rows."""

    heading: str
    text: str = ""
    rows: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)


@attrs.frozen
class DocsPage:
    """An extra page at ``pages/<slug>.html``, linked from the index under "More"."""

    slug: str
    title: str
    sections: tuple[DocsSection, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen
class DocsNodeDetail:
    """A section appended to the page of one resource (``resource_type`` source/model/test/exposure)."""

    resource_type: str
    name: str
    section: DocsSection
