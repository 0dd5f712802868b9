"""Core names no provider: the thin-core ratchet of issue 26.

Every line of ``streamt-core/src`` whose code (not its comments or docstrings) names a provider
kind — Flink, Kafka Connect and its connectors, the Conduktor Gateway, the Kafka Streams runner,
PostgreSQL, JDBC, Debezium — is a provider rule or vocabulary that belongs in the provider's
plugin. The error registry and the catalogues of extras and known kinds name them by design.
``ALLOWED`` holds how many such lines each file still has: a new file with a hit, or a file with
more hits than allowed, fails; a file with fewer fails too, until its allowance is lowered, so the
list only shrinks. Regenerate the table after moving code out of core with

    .venv/bin/python streamt-core/tests/test_provider_names.py
"""

from __future__ import annotations

import functools
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PROVIDER_NAMES = re.compile(
    r"flink|connector|\bconnect(?:_cluster)?\b|gateway|conduktor|virtual_topic|kafka_streams|kstreams"
    r"|postgres|jdbc|debezium",
    re.IGNORECASE,
)
# Where naming providers is the point: the registry of error codes (E201_GATEWAY_REQUIRED ...) and
# the catalogue of first-party extras and the kinds they provide (streamt[flink] ...).
EXEMPT = frozenset({"streamt/errors.py", "streamt/builtin.py"})
_PROSE = (tokenize.COMMENT, tokenize.NL)
_BOUNDARIES = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)

# Lines of code naming a provider, per file, today. Lower a number (or drop a row) when code leaves
# core; never raise one or add a row: put the provider's code in its plugin instead.
ALLOWED: dict[str, int] = {
    "streamt/adopt/target.py": 1,
    "streamt/apply/gates.py": 1,
    "streamt/apply/replacement.py": 1,
    "streamt/commands/adopt.py": 1,
    "streamt/commands/apply.py": 4,
    "streamt/commands/import_cmd.py": 1,
    "streamt/commands/init.py": 5,
    "streamt/commands/list_cmd.py": 1,
    "streamt/commands/test.py": 3,
    "streamt/compile/physical.py": 3,
    "streamt/docs_site/content.py": 1,
    "streamt/impact/compare.py": 17,
    "streamt/impact/workflows.py": 4,
    "streamt/kind_names.py": 6,
    "streamt/observe/collect.py": 1,
    "streamt/plan/online.py": 1,
    "streamt/project/loader.py": 3,
    "streamt/project/materialization.py": 11,
    "streamt/project/model.py": 3,
    "streamt/project/normalize.py": 22,
    "streamt/project/schema.py": 4,
    "streamt/project/sections.py": 1,
    "streamt/project/sqlmodels.py": 6,
    "streamt/runlineage/lifecycle.py": 2,
    "streamt/runlineage/namespaces.py": 1,
    "streamt/runlineage/options.py": 6,
    "streamt/sdk/__init__.py": 25,
    "streamt/sdk/reference.py": 1,
    "streamt/sql/types.py": 25,
    "streamt/state/operations.py": 1,
    "streamt/status/render.py": 3,
    "streamt/testrun/types.py": 2,
    "streamt/validation/columns.py": 5,
    "streamt/validation/fields.py": 1,
    "streamt/validation/governance.py": 1,
}


def provider_lines(text: str) -> set[int]:
    """The line numbers whose code tokens (docstrings and comments excluded) name a provider."""
    found: set[int] = set()
    # Comments and blank lines do not end a statement: without them, a string statement (a
    # docstring) is a STRING between two statement boundaries.
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _PROSE]
    for index, token in enumerate(tokens):
        if token.type in _BOUNDARIES:
            continue
        before = tokens[index - 1].type if index else tokenize.NEWLINE
        after = tokens[index + 1].type if index + 1 < len(tokens) else tokenize.ENDMARKER
        if token.type == tokenize.STRING and before in _BOUNDARIES and after in _BOUNDARIES:
            continue  # a docstring (or a bare string statement): prose, not code
        for match in PROVIDER_NAMES.finditer(token.string):
            found.add(token.start[0] + token.string.count("\n", 0, match.start()))
    return found


@functools.cache
def hits() -> dict[str, int]:
    """``path -> number of lines naming a provider`` for every non-exempt core module with any."""
    out: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name in EXEMPT:
            continue
        count = len(provider_lines(path.read_text(encoding="utf-8")))
        if count:
            out[name] = count
    return out


def _table(found: dict[str, int]) -> Iterator[str]:
    yield "ALLOWED: dict[str, int] = {"
    for name, count in found.items():
        yield f'    "{name}": {count},'
    yield "}"


def test_no_new_provider_name_in_core() -> None:
    found = hits()
    new = {name: count for name, count in found.items() if count > ALLOWED.get(name, 0)}
    assert not new, "Core code names a provider in new places (move it into the provider's plugin): " + ", ".join(
        f"{name} ({ALLOWED.get(name, 0)} -> {count})" for name, count in new.items()
    )


def test_the_allowlist_only_shrinks() -> None:
    found = hits()
    stale = {name: allowed for name, allowed in ALLOWED.items() if found.get(name, 0) < allowed}
    assert not stale, (
        "Fewer provider names in core than allowed: lower these rows of ALLOWED "
        "(python streamt-core/tests/test_provider_names.py prints the table): "
        + ", ".join(f"{name} ({allowed} -> {found.get(name, 0)})" for name, allowed in stale.items())
    )


def test_the_scan_sees_code_and_skips_prose() -> None:
    text = '"""Flink docstring."""\n# gateway comment\nx = "runtime.flink"\ny = 1  # kstreams\n'
    assert provider_lines(text) == {3}
    assert provider_lines("def f():\n    '''Uses Kafka Connect.'''\n    return conduktor\n") == {3}
    assert provider_lines('t = """a\nb: flink\nc"""\n') == {2}  # the line of a long string that names it


if __name__ == "__main__":
    sys.stdout.write("\n".join(_table(hits())) + "\n")
