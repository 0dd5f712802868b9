"""Honest placeholders for commands a plugin declares but does not implement yet."""

from __future__ import annotations

from typing import Any

import click

from streamt.errors import Codes, StreamtError


def pending_command(path: str, provider: str, help_text: str) -> click.Command:
    """A command that always fails with ``E904_NOT_IMPLEMENTED``.

    ``path`` is the full command (``state init``); ``provider`` the
    distribution that will implement it. Unknown options are accepted so the
    answer is always the honest one, not a usage error.
    """

    def callback(**_: Any) -> None:
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"'streamt {path}' is not implemented in this release of {provider}.",
            f"Upgrade {provider} when a release implements it.",
        )

    return click.Command(
        path.split()[-1],
        callback=callback,
        help=f"{help_text} (not implemented yet)",
        short_help=f"{help_text} (not implemented yet)",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
