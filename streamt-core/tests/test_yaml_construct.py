"""The direct construction of plain documents gives what PyYAML's own constructor gives, or defers to it."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamt.errors import StreamtError
from streamt.project import interpolation, yaml_io


class _PyYAML(yaml_io._Loader):
    """The project's loader with PyYAML's generic resolution and construction (what the fast paths replace)."""


_PyYAML.construct_document = yaml.CSafeLoader.construct_document  # type: ignore[method-assign]
_PyYAML.resolve = yaml.resolver.BaseResolver.resolve  # type: ignore[method-assign]
_PyYAML.descend_resolver = yaml.resolver.BaseResolver.descend_resolver  # type: ignore[method-assign]
_PyYAML.ascend_resolver = yaml.resolver.BaseResolver.ascend_resolver  # type: ignore[method-assign]


def _reference(text: str) -> Any:
    try:
        return ("ok", yaml.load(text, Loader=_PyYAML))
    except yaml.YAMLError as exc:
        return ("error", str(exc))
    except RecursionError:
        return ("error", "recursion")


def _ours(text: str) -> Any:
    try:
        return ("ok", yaml.load(text, Loader=yaml_io._Loader))
    except yaml.YAMLError as exc:
        return ("error", str(exc))
    except RecursionError:
        return ("error", "recursion")


@pytest.mark.parametrize(
    "text",
    [
        "models:\n  - name: a\n    sql: 'SELECT 1'\n    advanced: {flink: {ttl: 60000}, topic: {partitions: 3}}\n",
        "a: 0x1F\nb: 1_000\nc: 1:20\nd: .inf\ne: -.nan\nf: yes\ng: Off\nh: ~\ni: null\nj: 2026-01-01\n",
        "k: 1e3\nl: 0o17\nm: 017\nn: +12\no: 1.5e+3\n",
        "base: &b {x: 1, y: [1, 2]}\nuse: *b\nlist: [*b, *b]\n",
        "base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2\n",
        "a: 1\na: 2\n",
        "? [1, 2]\n: x\n",
        "a: !!binary aGVsbG8=\nb: !!set {x, y}\nc: !!omap [{a: 1}]\n",
        "a: !custom x\n",
        "r: &r [1, *r]\n",
        "m: &m {self: *m}\n",
        "= : value-key\n",
        "'1': a\n1: b\n1.0: c\n",
        "true: a\nnull: b\n",
        "!!str 5: x\ny: !!int '7'\nz: !!float '1'\n",
        "",
        "- [[[[[[[[[[1]]]]]]]]]]\n",
        "[" * 150 + "]" * 150,
    ],
)
def test_same_document_as_pyyaml(text: str) -> None:
    assert _ours(text) == _reference(text)


def test_shared_nodes_stay_shared() -> None:
    loaded = yaml.load("base: &b {x: [1]}\nuse: *b\n", Loader=yaml_io._Loader)
    assert loaded["base"] is loaded["use"]


def test_the_direct_walk_is_what_runs_for_plain_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without this, every comparison above could be PyYAML against itself.
    def refuse(*_args: Any) -> Any:
        raise AssertionError("fell back to PyYAML's constructor")

    monkeypatch.setattr(yaml.CSafeLoader, "construct_document", refuse)
    assert yaml.load("a: [1, {b: c}]\n", Loader=yaml_io._Loader) == {"a": [1, {"b": "c"}]}


def test_loader_errors_are_unchanged() -> None:
    with pytest.raises(StreamtError, match="duplicate key 'a'"):
        yaml_io.parse_yaml("a: 1\na: 2\n", "x.yml")


@pytest.mark.parametrize(
    "text", ["n: " + "7" * 5000 + "\n", "n: [" + "9" * 4301 + "]\n", "{n: &a 1, m: " + "1" * 4400 + "}"]
)
def test_an_integer_too_long_for_int_is_a_parse_error(text: str) -> None:
    with pytest.raises(StreamtError) as caught:
        yaml_io.parse_yaml(text, "x.yml")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code.code == "E501_PARSE_ERROR"
    assert "an integer is too long to read" in diagnostic.message and "7777" not in diagnostic.message


_scalar_text = st.sampled_from(
    ["1", "-2", "0x10", "1.5", ".5", "1e3", "yes", "No", "on", "~", "null", "''", "'q'", '"d"', "abc", "2020-01-01"]
)
_keys = st.sampled_from(["a", "b", "1", "true", "null", "<<", "'<<'", "="])


@st.composite
def _documents(draw: Any, depth: int = 0) -> str:
    if depth > 2 or draw(st.booleans()):
        return draw(_scalar_text)
    if draw(st.booleans()):
        items = draw(st.lists(_documents(depth + 1), max_size=3))
        return "[" + ", ".join(items) + "]"
    pairs = draw(st.lists(st.tuples(_keys, _documents(depth + 1)), max_size=3))
    return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_documents())
def test_fuzzed_flow_documents_match_pyyaml(text: str) -> None:
    assert _ours(text) == _reference(text)


def test_the_fast_resolver_is_installed() -> None:
    # Without this, the comparisons could be PyYAML's resolver against itself.
    assert yaml_io._Loader.resolve is yaml_io._resolve


def _tags(node: yaml.Node, seen: set[int]) -> list[Any]:
    if id(node) in seen:
        return ["alias"]
    seen.add(id(node))
    if isinstance(node, yaml.ScalarNode):
        return [(node.tag, node.value)]
    if isinstance(node, yaml.SequenceNode):
        return [node.tag, *(t for child in node.value for t in _tags(child, seen))]
    return [node.tag, *(t for k, v in node.value for t in (*_tags(k, seen), *_tags(v, seen)))]


_RESOLVER_TEXTS = [
    "a: 1\nb: -0b101\nc: 0o7\nd: 1_0:3\ne: .NaN\nf: -.Inf\ng: Y\nh: NULL\ni: ''\nj:\nk: 2026-01-01 10:00:00\n",
    "- <<\n- =\n- '1'\n- \"true\"\n- !!str 1\n- !local x\n- [a, {b: c}]\n- ~\n- \n",
    "base: &b {x: 1}\nm: {<<: *b, y: 2}\n",
]


@pytest.mark.parametrize("text", _RESOLVER_TEXTS)
def test_composed_tags_match_pyyaml(text: str) -> None:
    ours = yaml.compose(text, Loader=yaml_io._Loader)
    theirs = yaml.compose(text, Loader=_PyYAML)
    assert _tags(ours, set()) == _tags(theirs, set())


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789+-._:eExXbBoOyYnNtTfFlLuUsSaA~<=!&* "), max_size=12), st.booleans())
def test_fuzzed_scalars_resolve_as_pyyaml(value: str, plain: bool) -> None:
    loader = yaml_io._Loader("")
    try:
        for kind in (yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode):
            implicit = (plain, not plain)
            assert yaml_io._resolve(loader, kind, value, implicit) == yaml.resolver.BaseResolver.resolve(
                loader, kind, value, implicit
            )
    finally:
        loader.dispose()


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("models:\n  - name: a\n    sql: 'SELECT 1'\n    topic: {partitions: 3, x: 1.5, y: null, z: true}\n", True),
        ("just text\n", True),
        ("a: '${X}'\n", False),
        ('a: "\\u0024{X}"\n', False),
        ("a: 'a\\b'\n", False),
        ("a: &x [1]\nb: *x\n", False),
        ("a: 'R&D'\n", False),
        ("1: a\n", False),
        ("a: {<<: {b: 1}}\n", False),
        ("a: !!binary aGVsbG8=\n", False),
        ("a: 2026-01-01\n", True),
        ("", False),
    ],
)
def test_literal_documents(text: str, literal: bool) -> None:
    parsed, _plain = yaml_io._parse(text, "x.yml")
    assert parsed.literal is literal


def test_a_document_over_the_node_budget_is_not_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: [1, 2, 3]\nb: {c: 4}\n"  # root, a, 1, 2, 3, b, c: 7 nodes, as interpolation counts them
    monkeypatch.setattr(yaml_io, "MAX_NODES", 7)
    assert yaml_io._parse(text, "x.yml")[0].literal
    monkeypatch.setattr(yaml_io, "MAX_NODES", 6)
    assert not yaml_io._parse(text, "x.yml")[0].literal


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_documents())
def test_a_literal_document_is_its_own_interpolation(text: str) -> None:
    # What lets the loader skip the interpolating copy of a literal document.
    try:
        parsed, _plain = yaml_io._parse(text, "x.yml")
    except StreamtError:
        return
    if parsed.literal:
        copied = interpolation.interpolate(parsed.document, {}, "x.yml", set())
        assert copied == parsed.document
        assert repr(copied) == repr(parsed.document)  # same types too (True is not 1)
