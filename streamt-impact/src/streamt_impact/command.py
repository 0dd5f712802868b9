"""``streamt impact``: the declared changes between two Git refs, classified, with their downstream effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from streamt.sdk import Result, StreamtError, project_options


@click.command("impact")
@project_options
@click.option("--base", "base_ref", required=True, help="Git ref to compare against (branch, tag or commit).")
@click.option("--head", "head_ref", default=None, help="Git ref with the changes (default: the working tree).")
@click.option("--select", "selector", default=None, help="Report only these changed resources (tag:x, name, name+).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["operational", "breaking", "security", "any"]),
    default=None,
    help="Exit 1 when a change at this level (or worse: operational < breaking < security) is found: for CI gates.",
)
def impact_command(
    project_dir: str,
    env: str | None,
    base_ref: str,
    head_ref: str | None,
    selector: str | None,
    fmt: str,
    fail_on: str | None,
) -> Result:
    """Explain the downstream impact of changes between Git refs."""
    from streamt.sdk import to_json_text

    from streamt_impact.files import working_tree
    from streamt_impact.gitread import Repository
    from streamt_impact.render import markdown, text
    from streamt_impact.report import build
    from streamt_impact.snapshot import Side, take

    root = Path(project_dir)
    repository = Repository.containing(root)
    base_commit = repository.resolve(base_ref)
    base = take(Side("base", base_ref, base_commit), repository.project_files(base_commit), env)
    if head_ref is None:
        head = take(Side("head", None, None), working_tree(root), env)
    else:
        head_commit = repository.resolve(head_ref)
        head = take(Side("head", head_ref, head_commit), repository.project_files(head_commit), env)
    report = build(base, head, _selected(base, head, selector))
    met = report.meets(fail_on)
    data = {**report.to_json(), "gate": {"fail_on": fail_on, "met": met}}
    exit_code = 1 if met else None
    rendered = {"json": lambda: to_json_text(data).rstrip("\n"), "markdown": lambda: markdown(report).rstrip("\n")}
    if fmt in rendered:
        return Result("impact", data=data, text=rendered[fmt](), raw=True, warnings=head.warnings, force_exit=exit_code)
    return Result("impact", data=data, text=text(report), warnings=head.warnings, force_exit=exit_code)


def _selected(base: Any, head: Any, selector: str | None) -> set[str] | None:
    """Names the selector picks on either side; it must match something on at least one."""
    if selector is None:
        return None
    from streamt.sdk import build_graph, select

    chosen: set[str] = set()
    failures: list[StreamtError] = []
    for snapshot in (head, base):
        project = snapshot.project
        try:
            chosen |= select(project, build_graph(project), selector)
        except StreamtError as exc:
            failures.append(exc)
    if len(failures) == 2:
        raise failures[0]
    return chosen
