"""``Ref``: one ``{source: n}`` / ``{ref: n}`` reference.

It lives outside ``streamt.project`` so that ``streamt.render`` (which records the references a
model's SQL makes) and the project package (which renders SQL while loading) can both import it
at the top, without either importing the other's package first. ``streamt.project.model`` and
``streamt.sdk`` export it.
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Ref:
    """One ``{source: n}`` or ``{ref: n}`` entry; ``kind`` is ``source`` or ``model``, ``name`` the target.

    * ``source`` — the source name of a ``{source: n}`` entry, else ``None``.
    * ``ref`` — the model name of a ``{ref: n}`` entry, else ``None``.
    """

    source: str | None = None
    ref: str | None = None

    @property
    def kind(self) -> str:
        """``source`` or ``model``: what the reference points at."""
        return "source" if self.source is not None else "model"

    @property
    def name(self) -> str:
        """The name of the source or model referenced."""
        return self.source if self.source is not None else (self.ref or "")
