"""Finding the ``streamt`` entry points of installed distributions, quickly.

``importlib.metadata`` answers the same question, but importing it (email,
zipfile, pathlib, csv...) and parsing every distribution's metadata costs
about a fifth of ``streamt --help``. This reads only what the loader needs,
fresh on every start (nothing is cached, so nothing goes stale): the
``entry_points.txt`` of each ``*.dist-info`` / ``*.egg-info`` directory on
``sys.path``, and the name, version and requirements of the few
distributions that declare a ``streamt`` group.

The semantics follow ``importlib.metadata``: ``sys.path`` order, and the
first distribution of a given (normalised) name wins. A zipped ``sys.path``
entry, which this reader does not open, makes it defer to
``importlib.metadata`` for the whole answer; a test compares both on the
real environment.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple


class PluginEntryPoint(NamedTuple):
    """One entry point of the ``streamt`` group with its distribution's metadata."""

    name: str
    value: str  # "package.module" or "package.module:attribute"
    dist_name: str | None
    version: str | None
    requires: tuple[str, ...]  # Requires-Dist lines (PEP 508 strings)

    def load(self) -> Any:
        module_name, _, attribute = self.value.partition(":")
        target: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            target = getattr(target, part)
        return target


def find_entry_points(group: str, paths: Sequence[str] | None = None) -> list[PluginEntryPoint]:
    """Every entry point of ``group`` on ``paths`` (default ``sys.path``)."""
    search = list(sys.path if paths is None else paths)
    if any(os.path.isfile(entry) for entry in search):
        return from_importlib_metadata(group, search)
    found: list[PluginEntryPoint] = []
    seen: set[str] = set()
    for entry in search:
        directory = entry or "."
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist_key = _normalise(name.rsplit(".", 1)[0].split("-", 1)[0])
            if dist_key in seen:
                continue
            seen.add(dist_key)
            section = _read_group(os.path.join(directory, name, "entry_points.txt"), group)
            if section:
                dist_name, version, requires = _read_metadata(os.path.join(directory, name))
                found += [PluginEntryPoint(ep, value, dist_name, version, requires) for ep, value in section]
    return found


def from_importlib_metadata(group: str, paths: Sequence[str] | None = None) -> list[PluginEntryPoint]:
    """The same answer through ``importlib.metadata`` (the slow, general path)."""
    from importlib import metadata

    found = []
    seen: set[str] = set()
    for dist in metadata.distributions(path=list(sys.path if paths is None else paths)):
        key = _normalise(dist.metadata["Name"] or "")
        if key in seen:
            continue
        seen.add(key)
        for ep in dist.entry_points:
            if ep.group == group:
                found.append(
                    PluginEntryPoint(ep.name, ep.value, dist.metadata["Name"], dist.version, tuple(dist.requires or ()))
                )
    return found


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _read_group(path: str, group: str) -> list[tuple[str, str]]:
    """``name = value`` pairs of section ``[group]`` of an entry_points.txt."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return []
    header = f"[{group}]"
    if header not in text:  # most distributions declare console scripts only: nothing to parse
        return []
    pairs = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == header
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            pairs.append((name.strip(), value.split("[", 1)[0].strip()))
    return pairs


def _read_metadata(meta_dir: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """Name, Version and Requires-Dist from METADATA (dist-info) or PKG-INFO + requires.txt (egg-info)."""
    headers = _headers(os.path.join(meta_dir, "METADATA")) or _headers(os.path.join(meta_dir, "PKG-INFO"))
    name = next((v for k, v in headers if k == "name"), None)
    version = next((v for k, v in headers if k == "version"), None)
    requires = tuple(v for k, v in headers if k == "requires-dist")
    if meta_dir.endswith(".egg-info"):
        requires = tuple(_egg_requires(os.path.join(meta_dir, "requires.txt")))
    return name, version, requires


def _headers(path: str) -> list[tuple[str, str]]:
    # RFC 822 style: headers up to the first blank line, then the description.
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return []
    headers = []
    for line in text.split("\n\n", 1)[0].splitlines():
        if line[:1].isspace() or ":" not in line:
            continue  # continuation lines belong to long fields we do not read
        key, _, value = line.partition(":")
        headers.append((key.strip().lower(), value.strip()))
    return headers


def _egg_requires(path: str) -> Iterable[str]:
    # requires.txt: unconditional lines first, then "[extra]" / "[:marker]" sections.
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    section = ""
    out = []
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        out.append(f"{line}; {section}" if section else line)  # any section makes it conditional
    return out
