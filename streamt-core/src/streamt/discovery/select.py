"""Which discovered topics an import considers, and why the others were left out."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

import attrs

from streamt.discovery.model import TopicMetadata


def is_internal(topic: str) -> bool:
    """Broker and platform topics (``__consumer_offsets``, ``_schemas``, ``_connect-*``) start with ``_``."""
    return topic.startswith("_")


def matches(topic: str, include: Iterable[str], exclude: Iterable[str]) -> bool:
    include = tuple(include)
    if include and not any(fnmatch.fnmatchcase(topic, pattern) for pattern in include):
        return False
    return not any(fnmatch.fnmatchcase(topic, pattern) for pattern in exclude)


@attrs.frozen
class Selection:
    selected: tuple[TopicMetadata, ...]
    already_declared: tuple[str, ...]
    internal_skipped: int
    filtered_out: int


def select_topics(
    topics: Iterable[TopicMetadata], include: Iterable[str], exclude: Iterable[str], declared: set[str]
) -> Selection:
    selected: list[TopicMetadata] = []
    already: list[str] = []
    internal = filtered = 0
    for topic in sorted(topics, key=lambda t: t.name):
        if is_internal(topic.name):
            internal += 1
        elif not matches(topic.name, include, exclude):
            filtered += 1
        elif topic.name in declared:
            already.append(topic.name)
        else:
            selected.append(topic)
    return Selection(tuple(selected), tuple(already), internal, filtered)
