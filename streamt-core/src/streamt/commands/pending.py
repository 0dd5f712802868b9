"""Core commands of the specification that this release does not implement yet.

They exist so that `--help` shows the whole product and so that calling one
fails honestly with ``E904_NOT_IMPLEMENTED`` instead of click's "no such
command". Each is replaced by a real module as it lands.
"""

from __future__ import annotations

import click

from streamt.pending import pending_command


def __getattr__(attribute: str) -> click.Command:
    name = attribute.rstrip("_").replace("_", " ").replace("state recovery plan", "state recovery-plan")
    return pending_command(name, "streamt-core", "Not implemented yet")
