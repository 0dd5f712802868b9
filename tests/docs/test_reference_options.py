"""The CLI surface matches the option tables of the CLI reference, option by option.

The reference (``shared/seeds/000_*.txt``, the product specification) documents each command with an
``Option Description`` table; a few commands describe their options in prose only, listed in
``PROSE_OPTIONS`` below with the line they come from. Every command, option name and choice value
the reference names must exist in the assembled CLI (all installed plugins included), and so must
every command of a usage line (``streamt docs openapi [OPTIONS]`` has no table), its positional
arguments, the values of its ``Argument Values`` table, the global options, and the choices a few
descriptions spell out in prose (``PROSE_CHOICES``). A choice is checked against a ``click.Choice``;
an option that takes free text and validates it itself cannot be checked here. The only
exceptions are the rows of the "Reference conformance" table in ``docs/cli.md``, each with its
reason; an exception that no longer applies fails too, so the list cannot go stale.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from shared_material import SHARED
from streamt.cli import build_cli

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = next((SHARED / "seeds").glob("000_*.txt"), None)
CLI_DOC = ROOT / "docs" / "cli.md"

GLOBAL = "streamt"  # the root command: global options

# Options the reference describes in prose rather than in a table: (command, option, choices, line).
PROSE_OPTIONS: tuple[tuple[str, str, tuple[str, ...], int], ...] = (
    ("runtime build", "--dry-run", (), 134),
    ("runtime build", "--timeout", (), 134),
    ("adopt", "--project-dir", (), 601),
    ("adopt", "--env", (), 601),
    ("adopt", "--kind", ("topic", "schema", "connector", "gateway_rule"), 643),
    ("adopt", "--name", (), 601),
    ("adopt", "--confirm-resource", (), 601),
    ("adopt", "--confirm-env", (), 601),
    ("state resume", "--plan", (), 897),
    ("state resume", "--operation-id", (), 897),
    # "The options of state runner-status also apply here" (line 897): its table rows, short forms included.
    ("state resume", "--project-dir", (), 885),
    ("state resume", "-p", (), 885),
    ("state resume", "--env", (), 886),
    ("state resume", "-e", (), 886),
    ("state resume", "--confirm-env", (), 897),
    ("state resume", "--timeout", (), 897),
    ("docs datahub", "--quiet", (), 1379),
    # The global options, listed under "Options:" rather than in a table.
    (GLOBAL, "--output", ("text", "json"), 37),
    (GLOBAL, "-o", ("text", "json"), 37),
    (GLOBAL, "--version", (), 38),
    (GLOBAL, "--help", (), 39),
)

# Choices a table row names in its description rather than as an ``a\|b`` metavar.
PROSE_CHOICES: tuple[tuple[str, str, tuple[str, ...], int], ...] = (
    ("test", "--type", ("schema", "sample", "continuous"), 661),
    ("lineage", "--format", ("ascii", "json", "mermaid"), 722),
    ("state recovery-plan", "--resolution", ("observed", "rolled_back", "abandoned_before_mutation"), 909),
    ("status", "--format", ("text", "json"), 1020),
    ("list", "--sort-by", ("name", "type", "upstream"), 1107),
    ("docs dictionary", "--format", ("csv", "json"), 1447),
)

_COMMAND_LINE = re.compile(r"^streamt (?:-o json )?([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))?\b")
# A usage line: ``streamt show RESOURCE_TYPE NAME [OPTIONS]`` (positional arguments before ``[OPTIONS]``).
_USAGE_LINE = re.compile(r"^streamt ([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)?)((?: [A-Z][A-Z_]*)*) \[OPTIONS\]$")
_EXCLUSION_ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \| (.+?) \|$")


def reference_rows(text: str) -> list[tuple[str, str, tuple[str, ...], int]]:
    """(command, option, choices, line) for every option named in an ``Option Description`` table,
    every usage line (``<command>`` and its positional ``ARGUMENTS``) and every ``Argument Values`` row."""
    rows: list[tuple[str, str, tuple[str, ...], int]] = []
    command: str | None = None
    table: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        match = _COMMAND_LINE.match(line)
        if match and ("[OPTIONS]" in line or line.rstrip().endswith("\\")):
            command = " ".join(word for word in match.groups() if word)
        usage = _USAGE_LINE.match(line.rstrip())
        if usage:
            rows.append((usage.group(1), "<command>", (), number))
            rows.extend((usage.group(1), name, (), number) for name in usage.group(2).split() if name != "COMMAND")
        if line.startswith(("Option Description", "Argument Values")):
            table = line.split()[0]
            continue
        if table is None:
            continue
        if command is None or not line.strip():
            table = None
            continue
        if table == "Option" and line.startswith("-"):
            rows.extend((command, name, choices, number) for name, choices in _option_names(line))
        elif table == "Argument" and re.match(r"^[A-Z][A-Z_]* ", line):
            rows.append((command, *_argument_values(line), number))
        else:
            table = None
    return rows


def _option_names(row: str) -> list[tuple[str, tuple[str, ...]]]:
    """``--env ENV, -e ENV Target ...`` -> [("--env", ()), ("-e", ())]; ``a\\|b`` metavars are choices."""
    names: list[tuple[str, tuple[str, ...]]] = []
    words = row.split()
    i = 0
    while i < len(words) and (words[i].startswith("-") or words[i] == "/"):
        if words[i] == "/":  # ``--schemas / --no-schemas``: both spellings are options
            i += 1
            continue
        name = words[i].rstrip(",")
        metavar = words[i + 1].rstrip(",") if i + 1 < len(words) else ""
        choices = tuple(metavar.split("\\|")) if "\\|" in metavar else ()
        names.append((name, choices))
        i += 2 if metavar and (metavar.isupper() or choices) else 1
    return names


def _argument_values(row: str) -> tuple[str, tuple[str, ...]]:
    """``RESOURCE_TYPE sources, models`` -> ("RESOURCE_TYPE", ("sources", "models")); ``NAME Resource name``
    describes a free value: ("NAME", ())."""
    name, _, rest = row.partition(" ")
    values = tuple(value.strip() for value in rest.split(","))
    return name, values if all(re.fullmatch(r"[a-z_]+", value) for value in values) else ()


def exclusions() -> dict[tuple[str, str], str]:
    """``docs/cli.md`` "Reference conformance" rows: (command, option or choice) -> reason."""
    text = CLI_DOC.read_text(encoding="utf-8")
    section = text.split("## Reference conformance", 1)[1].split("\n## ", 1)[0]
    found: dict[tuple[str, str], str] = {}
    for line in section.splitlines():
        match = _EXCLUSION_ROW.match(line.strip())
        if match and match.group(1) != "command":
            found[(match.group(1), match.group(2))] = match.group(3)
    return found


def _resolve(root: click.Group, path: str) -> tuple[click.Command, click.Context] | None:
    command: click.Command = root
    context = click.Context(root)
    for word in [] if path == GLOBAL else path.split():
        if not isinstance(command, click.Group):
            return None
        sub = command.get_command(context, word)
        if sub is None:
            return None
        context = click.Context(sub, parent=context)
        command = sub
    return command, context


def _parameters(command: click.Command, context: click.Context) -> dict[str, click.Parameter]:
    """Options by every spelling (``--help`` included), positional arguments by their upper-case name."""
    params: dict[str, click.Parameter] = {}
    for param in command.get_params(context):
        if isinstance(param, click.Argument):
            params[(param.name or "").upper()] = param
        else:
            params.update(dict.fromkeys((*param.opts, *param.secondary_opts), param))
    return params


def _gaps(rows: list[tuple[str, str, tuple[str, ...], int]]) -> dict[tuple[str, str], int]:
    """What the CLI lacks: (command, option) or (command, "option=choice") -> reference line."""
    root = build_cli()
    gaps: dict[tuple[str, str], int] = {}
    for command_path, option, choices, line in rows:
        resolved = _resolve(root, command_path)
        if resolved is None:
            gaps.setdefault((command_path, "<command>"), line)
            continue
        if option == "<command>":
            continue
        param = _parameters(*resolved).get(option)
        if param is None:
            gaps[(command_path, option)] = line
            continue
        if choices and isinstance(param.type, click.Choice):
            for choice in choices:
                if choice not in param.type.choices:
                    gaps[(command_path, f"{option}={choice}")] = line
    return gaps


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, str, tuple[str, ...], int]]:
    if REFERENCE is None:
        pytest.skip(f"the CLI reference is not in {SHARED / 'seeds'} (set STREAMT_SHARED_DIR)")
    return reference_rows(REFERENCE.read_text(encoding="utf-8")) + list(PROSE_OPTIONS) + list(PROSE_CHOICES)


def test_the_reference_tables_are_parsed(rows):
    # A parser that silently found nothing would pass everything below.
    commands = {command for command, *_ in rows}
    assert len(rows) >= 170
    assert {"init", "plan", "apply", "test", "status", "state recover", "docs odcs", "docs openapi"} <= commands
    found = {(command, option): choices for command, option, choices, _ in rows}
    assert found[("import", "--no-schemas")] == () and found[("docs odcs", "--format")] == ("yaml", "json")
    assert found[("list", "RESOURCE_TYPE")] == ("sources", "models", "tests", "exposures")
    assert found[("show", "NAME")] == () and ("envs show", "ENV") in found


def test_every_prose_entry_is_where_the_reference_says():
    # The hand-written lists must not drift from the text they transcribe (a few lines either side).
    if REFERENCE is None:
        pytest.skip(f"the CLI reference is not in {SHARED / 'seeds'} (set STREAMT_SHARED_DIR)")
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    for command, option, choices, line in (*PROSE_OPTIONS, *PROSE_CHOICES):
        near = "\n".join(lines[max(line - 6, 0) : line + 8])
        assert option in near, (command, option, line)
        assert all(choice in near for choice in choices), (command, option, line)


def test_every_reference_option_exists_or_is_a_documented_exception(rows):
    gaps = _gaps(rows)
    excused = exclusions()
    undocumented = {
        gap: line for gap, line in gaps.items() if gap not in excused and (gap[0], "<command>") not in excused
    }
    assert not undocumented, "missing from the CLI (reference line): " + ", ".join(
        f"{command} {option} (line {line})" for (command, option), line in sorted(undocumented.items())
    )


def test_no_exception_is_stale(rows):
    gaps = _gaps(rows)
    stale = sorted(key for key in exclusions() if key not in gaps)
    assert not stale, f"docs/cli.md excuses options the CLI now has; remove them: {stale}"


def test_every_exception_says_why():
    for key, reason in exclusions().items():
        assert len(reason.split()) >= 3, f"exception {key} needs a reason"
