"""Names every output can hold (issue 28): what validate accepts, ``docs generate`` and Kafka can write.

A declaration's documentation page is a file named after it (``streamt.docs_paths.page_path``:
characters other than letters, digits, ``_`` and ``-`` take three bytes each), and file systems
hold at most 255 bytes per file name; a Kafka topic name holds at most 249 characters. A name past
either limit is ``E501`` here, not ``E905`` or a broker refusal later.
"""

from __future__ import annotations

from streamt.docs_paths import page_path
from streamt.errors import Codes, Diagnostic
from streamt.fsutil import MAX_FILE_NAME_BYTES
from streamt.project.model import Project

MAX_TOPIC_CHARACTERS = 249


def check(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    declared = (
        ("source", project.sources),
        ("model", project.models),
        ("test", project.tests),
        ("exposure", project.exposures),
    )
    for kind, items in declared:
        for item in items:
            size = len(page_path(kind, item.name).rpartition("/")[2].encode())
            if size > MAX_FILE_NAME_BYTES:
                out.append(
                    _too_long(project, kind, item.name, f"its documentation page would be a {size}-byte file name")
                )
    topics = [("source", s.name, s.topic) for s in project.sources]
    topics += [("model", m.name, m.topic_name) for m in project.models if m.materialized != "sink"]
    for kind, name, topic in topics:
        if isinstance(topic, str) and len(topic) > MAX_TOPIC_CHARACTERS:
            out.append(
                _too_long(project, kind, name, f"its topic name has {len(topic)} characters (Kafka: at most 249)")
            )
    return out


def _too_long(project: Project, kind: str, name: str, why: str) -> Diagnostic:
    shown = name if len(name) <= 60 else name[:60] + "..."
    return Diagnostic(
        Codes.E501_PARSE_ERROR,
        f"The {kind} name '{shown}' is too long: {why}",
        f"Use a shorter {kind} name (or topic name).",
        project.locations.get((kind, name)),
    )
