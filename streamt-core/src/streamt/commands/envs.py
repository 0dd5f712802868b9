"""``streamt envs list`` / ``envs show``: environments and their resolved, secret-masked configuration."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import project_dir_option
from streamt.errors import Codes, StreamtError
from streamt.result import Result

MASK = "****"
_SECRET_WORDS = ("password", "secret", "api_key", "token", "dsn", "credential", "private_key", "key_password", "jaas")


@click.command("list")
@project_dir_option
def envs_list(project_dir: str) -> Result:
    """List available environments."""
    from pathlib import Path

    from streamt.project import environments

    root = Path(project_dir)
    _require_multi(root)
    items = []
    for name, path in environments.available(root).items():
        block = _environment_block(root, name, path)
        items.append({"name": name, "description": block.get("description"), "protected": bool(block.get("protected"))})
    lines = [
        f"{i['name']:<12} {i['description'] or ''}{' [protected]' if i['protected'] else ''}".rstrip() for i in items
    ]
    return Result("envs list", data={"count": len(items), "environments": items}, text="\n".join(lines))


@click.command("show")
@click.argument("env")
@project_dir_option
def envs_show(env: str, project_dir: str) -> Result:
    """Show resolved configuration for an environment (secrets masked).

    Unset variables do not fail the command: their placeholders stay as ``${NAME}`` text (and are
    listed in ``data.unresolved``), so an operator can inspect prod without exporting prod secrets.
    Secret-looking keys are masked whether or not their value was resolved.
    """
    from pathlib import Path

    import yaml

    from streamt.project import environments
    from streamt.project.dotenv import effective_environment
    from streamt.project.interpolation import interpolate

    root = Path(project_dir)
    _require_multi(root)
    selection = environments.select(root, env)
    document = environments.read_environment_file(root, selection)
    missing: set[str] = set()
    variables = effective_environment(root, selection.name)
    resolved = interpolate(document, variables, str(selection.path), missing, keep_missing=True)
    resolved.setdefault("environment", {})
    if isinstance(resolved["environment"], dict):
        resolved["environment"] = {"name": selection.name, **resolved["environment"]}
    masked = mask_secrets(resolved)
    unresolved = sorted(missing)
    text = yaml.safe_dump(masked, sort_keys=False, allow_unicode=True).rstrip("\n")
    if unresolved:
        text += f"\n# not set (shown as ${{NAME}}): {', '.join(unresolved)}"  # a YAML comment: output stays YAML
    return Result(
        "envs show", data={"name": selection.name, "config": masked, "unresolved": unresolved}, text=text, raw=True
    )


def mask_secrets(value: Any, key: str = "") -> Any:
    """Replace every secret-looking value; ``*_env`` keys hold variable names and stay visible."""
    if isinstance(value, dict):
        return {k: mask_secrets(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v, key) for v in value]
    lowered = key.lower()
    if value is not None and not lowered.endswith("_env") and any(w in lowered for w in _SECRET_WORDS):
        return MASK
    if isinstance(value, str) and "://" in value and "@" in value.split("://", 1)[1].split("/", 1)[0]:
        scheme, rest = value.split("://", 1)
        return f"{scheme}://{MASK}@{rest.split('@', 1)[1]}"
    return value


def _require_multi(root: Any) -> None:
    from streamt.project import environments

    if not environments.is_multi(root):
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            "No environments configured (single-environment project).",
            "Create environments/<name>.yml to use multi-environment mode.",
        )


def _environment_block(root: Any, name: str, path: Any) -> dict[str, Any]:
    from streamt.project import environments

    document = environments.read_environment_file(root, environments.Selection(name, True, path))
    block = document.get("environment")
    return block if isinstance(block, dict) else {}
