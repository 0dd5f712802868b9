"""Reading project YAML: fast on the happy path, precise on the error path.

Documents are parsed with libyaml (PyYAML's C ``CSafeLoader``) because a pure-Python round-trip
parser dominates ``validate`` time on large projects. Line and column numbers are recovered only
when there is something to report: ``locate`` re-composes the one file involved and walks to the
key. Every failure is an ``E501_PARSE_ERROR`` naming the file; nothing here raises anything else.

Unchanged files are not parsed again: ``load_yaml`` keeps plain documents in the content-addressed
``parse_cache`` (outside the project; see that module for what is stored and why it is safe).
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from streamt.errors import Codes, StreamtError
from streamt.project.parse_cache import MISS, ParseCache, cache_root, vetted_by_text

MAX_FILE_BYTES = 20 * 1024 * 1024
# Anchors let a small document describe a huge tree ("billion laughs"); every consumer walks the
# tree, so the number of nodes reachable through aliases is capped.
MAX_NODES = 2_000_000


class _Loader(yaml.CSafeLoader):
    """Safe loading, plus: duplicate keys are errors, timestamps stay strings."""

    # Set by ``_construct_document`` when the direct walk built the document (the parse cache
    # stores only those), with the walk's findings for ``Parsed.literal``.
    plain = False
    string_keys = False
    nodes = 0


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# libyaml's composer calls back into Python for every node: ``resolve`` for its tag, and
# ``descend_resolver``/``ascend_resolver`` around it for path resolvers, which this loader has none
# of. ``_resolve`` is ``BaseResolver.resolve`` for a loader without path or wildcard resolvers
# (``test_yaml_construct`` compares the two), and the path hooks become C built-ins that accept the same
# arguments and do nothing, so a node costs no Python frame there.
_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_IMPLICIT = {first: tuple(resolvers) for first, resolvers in _Loader.yaml_implicit_resolvers.items()}
_FAST_RESOLVE = not _Loader.yaml_path_resolvers and None not in _IMPLICIT


# Plain texts that could be more than a string (``name``, ``true``, ``3``) -> their tag: the same keys
# and numbers recur in every declaration. Bounded, since it lives as long as the process.
_TAGS: dict[str, str] = {}
_TAGS_MAX, _TAG_TEXT_MAX = 4096, 64


def _resolve(loader: _Loader, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str | None:
    if kind is yaml.ScalarNode:
        if implicit[0]:
            resolvers = _IMPLICIT.get(value[:1])
            if resolvers is not None:
                tag = _TAGS.get(value)
                if tag is None:
                    tag = next((tag for tag, regexp in resolvers if regexp.match(value)), _STR)
                    if len(value) <= _TAG_TEXT_MAX and len(_TAGS) < _TAGS_MAX:
                        _TAGS[value] = tag
                return tag
        return _STR
    if kind is yaml.SequenceNode:
        return _SEQ
    if kind is yaml.MappingNode:
        return _MAP
    return None


if _FAST_RESOLVE:
    _Loader.resolve = _resolve  # type: ignore[assignment]
    _Loader.descend_resolver = staticmethod(slice)  # type: ignore[assignment]  # (node, index) -> ignored
    _Loader.ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]  # () -> ignored


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in mapping
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "found an unhashable key (a list or map used as a key)", key_node.start_mark
            ) from None
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r}",
                key_node.start_mark,
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


class _NotPlain(Exception):
    """The document needs PyYAML's own constructor (merge keys, recursion, a duplicate key, other tags)."""


_PLAIN_SCALARS = {
    f"tag:yaml.org,2002:{name}": _Loader.yaml_constructors[f"tag:yaml.org,2002:{name}"]
    for name in ("int", "float", "bool", "null")
}
_SPECIAL_KEYS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")
# Deeper than any project file; PyYAML's own frames run out sooner than this walk's, so past it the
# document goes to PyYAML, which reports what it always did.
_PLAIN_DEPTH = 100
_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


def _construct_document(loader: _Loader, node: yaml.Node) -> Any:
    """PyYAML's construction of plain documents (maps, lists, the core scalars), in one direct walk.

    ``SafeConstructor.construct_document`` dispatches every node through ``construct_object`` and
    generators (most of the load time PyYAML spends in Python). This walk builds the same values for
    the same nodes (one object per collection node, so aliases share it, as there) with PyYAML's own
    scalar constructors; anything else raises ``_NotPlain`` before any node is changed, and the
    document is constructed by PyYAML itself, errors included.
    """
    try:
        walk = _Plain(loader)
        document = _scalar(loader, node, walk.constructed) if type(node) is _ScalarNode else walk.collection(node, 0)
    except Exception:
        return yaml.CSafeLoader.construct_document(loader, node)
    loader.plain, loader.string_keys, loader.nodes = True, walk.string_keys, walk.nodes
    return document


def _scalar(loader: _Loader, node: yaml.ScalarNode, constructed: dict[tuple[str, str], Any]) -> Any:
    """A scalar's value; an int, float, bool or null text seen before in the document is not constructed again."""
    tag = node.tag
    if tag == _STR:
        return node.value
    key = (tag, node.value)
    value = constructed.get(key, constructed)
    if value is constructed:
        construct = _PLAIN_SCALARS.get(tag)
        if construct is None:
            raise _NotPlain(tag)
        value = constructed[key] = construct(loader, node)
    return value


class _Plain:
    """One document's walk: collections recurse, scalars are read in the loop (most nodes are scalars).

    ``nodes`` counts what interpolation's budget counts (the root, every list item and map value;
    an alias's contents only once, which is exact for a file without anchors), ``string_keys``
    whether every map key is text.
    """

    def __init__(self, loader: _Loader) -> None:
        self.loader = loader
        self.built: dict[int, Any] = {}
        self.constructed: dict[tuple[str, str], Any] = {}
        self.nodes = 1
        self.string_keys = True

    def collection(self, node: yaml.Node, depth: int) -> Any:
        built, ident = self.built, id(node)
        shared = built.get(ident, built)
        if shared is not built:  # an alias of a node built before
            if shared is None:  # still being built: a recursive alias
                raise _NotPlain("recursive")
            return shared
        if depth > _PLAIN_DEPTH:
            raise _NotPlain("deep")
        built[ident] = None
        self.nodes += len(node.value)
        loader, constructed, depth = self.loader, self.constructed, depth + 1
        kind = type(node)
        value: Any
        if kind is _SequenceNode and node.tag == _SEQ:
            value = []
            for child in node.value:
                if type(child) is _ScalarNode:
                    value.append(child.value if child.tag == _STR else _scalar(loader, child, constructed))
                else:
                    value.append(self.collection(child, depth))
        elif kind is _MappingNode and node.tag == _MAP:
            value = {}
            for key_node, value_node in node.value:
                if type(key_node) is not _ScalarNode:
                    raise _NotPlain("key")  # a list or map as a key
                if key_node.tag == _STR:
                    key = key_node.value
                elif key_node.tag in _SPECIAL_KEYS:
                    raise _NotPlain("merge")
                else:
                    key = _scalar(loader, key_node, constructed)
                    self.string_keys = False
                if key in value:
                    raise _NotPlain("key")
                if type(value_node) is _ScalarNode:
                    tag = value_node.tag
                    value[key] = value_node.value if tag == _STR else _scalar(loader, value_node, constructed)
                else:
                    value[key] = self.collection(value_node, depth)
        else:
            raise _NotPlain(node.tag)
        built[ident] = value
        return value


_Loader.construct_document = _construct_document  # type: ignore[method-assign,assignment]


def display_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def read_text(path: Path, shown: str) -> str:
    """The file's text; only regular, readable, UTF-8 files of a sane size are accepted."""
    return _decode(read_bytes(path, shown), shown)


def read_bytes(path: Path, shown: str) -> bytes:
    """The file's bytes; only regular, readable, non-binary files of a sane size are accepted."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _error(shown, f"cannot read file ({exc.strerror or 'unreadable'})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _error(shown, "not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise _error(shown, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _error(shown, f"cannot read file ({exc.strerror or 'unreadable'})") from None
    if b"\x00" in data:
        raise _error(shown, "file is binary, not YAML text")
    return data


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _error(shown, f"file is not UTF-8 text (byte {exc.start})") from None


class Parsed(NamedTuple):
    """One file's document; ``literal`` when interpolating it would only copy it.

    That is: the direct walk built it (maps, lists, core scalars), every key is text, the file has
    no ``&`` (so no node is shared), no ``$`` and no backslash (so no text holds a ``$``, escapes
    included), and it has at most ``MAX_NODES`` nodes. A document read from the parse cache is not
    called literal: its node count is not known without a walk.
    """

    document: Any
    literal: bool


def load_yaml(path: Path, shown: str) -> Any:
    """Parse one YAML file (a single document). Empty files yield ``None``."""
    return read_yaml(path, shown).document


def read_yaml(path: Path, shown: str) -> Parsed:
    """``load_yaml``, and whether the document is literal (see ``Parsed``)."""
    data = read_bytes(path, shown)
    cache = _parse_cache(cache_root(os.environ))
    if cache is None:
        return _parse(_decode(data, shown), shown)[0]
    key = cache.key(data)
    document = cache.get(key)
    if document is not MISS:
        # Only a document parsed from these very bytes is stored, so they are known to be UTF-8.
        return Parsed(document, False)
    text = _decode(data, shown)
    parsed, plain = _parse(text, shown)
    # An anchor needs '&'; without one no node is shared, so the JSON copy is the same tree.
    if plain and b"&" not in data:
        cache.put(key, parsed.document, vetted=parsed.literal and vetted_by_text(text))
    return parsed


def parse_yaml(text: str, shown: str) -> Any:
    return _parse(text, shown)[0].document


def _parse(text: str, shown: str) -> tuple[Parsed, bool]:
    """The document, and whether the direct walk built it (what ``yaml.load`` does, plus that flag)."""
    try:
        loader = _Loader(text)
        try:
            document = loader.get_single_data()
            literal = (
                loader.plain
                and loader.string_keys
                and loader.nodes <= MAX_NODES
                and "&" not in text
                and "$" not in text
                and "\\" not in text
            )
            return Parsed(document, literal), loader.plain
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            raise _error(shown, problem) from None
        raise _error(f"{shown}:{mark.line + 1}:{mark.column + 1}", problem) from None
    except yaml.YAMLError as exc:
        raise _error(shown, str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise _error(shown, "document is nested too deeply") from None
    except ValueError as exc:
        # int() refuses integers of more than sys.get_int_max_str_digits() digits (CVE-2020-10735);
        # the exception's own text may quote the value, so it is not shown.
        too_long = "digits" in str(exc)
        raise _error(shown, "an integer is too long to read" if too_long else "a value cannot be read") from None


@cache
def _parse_cache(root: Path | None) -> ParseCache | None:
    """One cache per location and process; ``None`` when caching is off or the parser is unknown."""
    if root is None:
        return None
    try:
        own_source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:
        return None  # without the loader's source digest an edited loader could read stale entries
    libyaml = yaml._yaml.get_version_string()  # type: ignore[attr-defined]
    # The interpreter too: int() and float() build the scalars, and venvs of several Pythons share ~/.cache.
    python = f"{sys.implementation.name} {sys.version_info[:3]}"
    return ParseCache(root, f"{python}\0PyYAML {yaml.__version__}\0libyaml {libyaml}\0yaml_io {own_source}")


def _error(where: str, problem: str) -> StreamtError:
    return StreamtError(
        Codes.E501_PARSE_ERROR,
        f"Invalid YAML in {where}: {problem}",
        "Fix the YAML syntax at the reported position.",
        location=where,
    )


class SourcePosition(str):
    """A location that reads as the file (``models/x.yml``) and knows the node it points at.

    The loader hands these out in ``Project.locations`` at no parsing cost; ``Locator`` turns the
    ones that end up in a finding into ``file:line:col``. Anything that never resolves it still
    shows the file name, as before.
    """

    path: Path
    keys: tuple[Any, ...]

    def __new__(cls, shown: str, path: Path, keys: tuple[Any, ...]) -> SourcePosition:
        self = super().__new__(cls, shown)
        self.path = path
        self.keys = keys
        return self


class Locator:
    """Resolves ``SourcePosition``s to ``file:line:col``, composing each file at most once."""

    def __init__(self) -> None:
        self._nodes: dict[Path, yaml.Node | None] = {}
        # One key index per mapping node, shared by all lookups: a file with 20,000 unknown keys
        # gets 20,000 findings, and scanning the mapping for each would be quadratic.
        self._keys: dict[int, dict[str, tuple[yaml.Node, yaml.Node]]] = {}

    def __call__(self, position: SourcePosition) -> str:
        if position.path not in self._nodes:
            self._nodes[position.path] = _compose(position.path)
        node = self._nodes[position.path]
        found = _walk_to(node, position.keys, self._keys) if node is not None else None
        return f"{position}:{found[0]}:{found[1]}" if found else str(position)


def _compose(path: Path) -> yaml.Node | None:
    try:
        return yaml.compose(read_text(path, str(path)), Loader=_Loader)
    except (StreamtError, yaml.YAMLError, RecursionError):
        return None


def locate(path: Path, keys: tuple[Any, ...]) -> tuple[int, int] | None:
    """1-based (line, column) of the node at ``keys`` (map keys and list indexes) in ``path``.

    Walks as deep as the path exists, so a missing key points at its parent map.
    """
    node = _compose(path)
    return _walk_to(node, keys) if node is not None else None


def _walk_to(
    node: yaml.Node, keys: tuple[Any, ...], index: dict[int, dict[str, tuple[yaml.Node, yaml.Node]]] | None = None
) -> tuple[int, int] | None:
    index = {} if index is None else index
    best = node
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            entries = index.get(id(node))
            if entries is None:
                entries = {}
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode):
                        entries.setdefault(key_node.value, (key_node, value_node))
                index[id(node)] = entries
            pair = entries.get(str(key))
            if pair is None:
                break
            best, node = pair
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            node = node.value[key]
            best = node
        else:
            break
    if best is None:
        return None
    return best.start_mark.line + 1, best.start_mark.column + 1


def config_lookup(document: dict[str, Any], dotted: str) -> Any:
    """The value at ``a.b.c`` of a loaded YAML document (Jinja ``config('a.b.c')``); ``KeyError`` if absent."""
    value: Any = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(dotted)
        value = value[part]
    return value
