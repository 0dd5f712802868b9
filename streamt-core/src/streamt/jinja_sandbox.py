"""A Jinja environment for model SQL that cannot exhaust memory or time (E105 instead).

Jinja's ``ImmutableSandboxedEnvironment`` stops attribute and mutation tricks, but not resource use:
``{{ 'x' * 10**10 }}`` allocates 10 GB, ``{% set a = a ~ a %}`` doubles per line, nested loops or a
branching recursive macro run for ever, and deeply nested blocks overflow Python's compiler. Each
of those is capped here; hitting a cap raises ``LimitExceeded``, which rendering reports as E105.

Caps are generous for real SQL templates (which are small) and tiny next to the harm they stop.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.lexer import TOKEN_OPERATOR
from jinja2.sandbox import ImmutableSandboxedEnvironment

from streamt.rendered import MAX_SQL_CHARS

MAX_TEMPLATE_CHARS = 1_000_000
MAX_OUTPUT_CHARS = MAX_SQL_CHARS
MAX_VALUE_CHARS = 1_000_000  # any one string/list built by an operator
MAX_INT_BITS = 4096  # no SQL literal needs more; big-int arithmetic is the slow path
MAX_NESTING = 10  # Python refuses more than 20 statically nested blocks in the compiled code
MAX_DEPTH = 100  # expression nesting; Python's parser refuses 200 nested parentheses
MAX_NODES = 50_000
MAX_STEPS = 100_000  # loop iterations plus calls, over one render
MAX_SECONDS = 2.0

# String methods a template may call: none of them can grow a string beyond its input.
_STR_METHODS = frozenset(
    {
        "lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "rsplit",
        "title", "capitalize", "casefold", "isdigit", "isalpha", "isalnum", "islower", "isupper",
        "find", "rfind", "count", "removeprefix", "removesuffix",
    }
)  # fmt: skip
_BUDGET = "__streamt_budget__"


class LimitExceeded(Exception):
    """A resource cap was hit; the message names it and is safe to show."""


class _Steps:
    """Counts loop iterations and calls of one render; checks the clock every 1,000 steps."""

    def __init__(self) -> None:
        self.left = MAX_STEPS
        self.deadline = time.monotonic() + MAX_SECONDS

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise LimitExceeded(f"the template runs more than {MAX_STEPS:,} loop iterations and calls")
        if self.left % 1000 == 0 and time.monotonic() > self.deadline:
            raise LimitExceeded(f"the template takes longer than {MAX_SECONDS:g} s to render")


def _check_value(value: Any) -> Any:
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_VALUE_CHARS:
        raise LimitExceeded(f"the template builds a value longer than {MAX_VALUE_CHARS:,}")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise LimitExceeded(f"the template builds a number larger than {MAX_INT_BITS} bits")
    return value


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 0


class _CappedCodeGenerator(CodeGenerator):
    """``a ~ b`` compiles to a join Jinja does not route through the sandbox; route it through a cap."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.capped_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class CappedSandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "+", "%", "//"})
    code_generator_class = _CappedCodeGenerator

    def __init__(self) -> None:
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False)
        self.steps = _Steps()

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "%" and isinstance(left, str):
            raise LimitExceeded("string formatting with % is not available in model SQL")
        if operator == "*" and isinstance(left, int) and isinstance(right, (str, list, tuple)):
            left, right = right, left
        if operator == "*" and isinstance(right, int) and _size(left) * max(right, 0) > MAX_VALUE_CHARS:
            raise LimitExceeded(f"the template builds a value longer than {MAX_VALUE_CHARS:,}")
        if (
            operator == "**"
            and isinstance(left, int)
            and isinstance(right, int)
            and (abs(right) > MAX_INT_BITS or left.bit_length() * abs(right) > MAX_INT_BITS)
        ):
            raise LimitExceeded(f"the template builds a number larger than {MAX_INT_BITS} bits")
        if operator == "+" and _size(left) + _size(right) > MAX_VALUE_CHARS:
            raise LimitExceeded(f"the template builds a value longer than {MAX_VALUE_CHARS:,}")
        return _check_value(super().call_binop(context, operator, left, right))

    # Jinja's own signature: the double-underscore names keep a template's keyword arguments free.
    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        __self.steps.spend()
        return _check_value(super().call(__context, __obj, *args, **kwargs))

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, str) and attr not in _STR_METHODS:
            return False  # format, center, ljust, zfill, replace, join, expandtabs... can grow a string
        return bool(super().is_safe_attribute(obj, attr, value))

    def wrap_str_format(self, value: Any) -> None:
        # Jinja hands out a "safe" str.format before asking is_safe_attribute; a width such as
        # '{:>1000000000}' still allocates a gigabyte, so format/format_map are simply unavailable.
        return None

    def capped_concat(self, parts: Iterable[Any]) -> str:
        texts = [str(part) for part in parts]
        if sum(map(len, texts)) > MAX_VALUE_CHARS:
            raise LimitExceeded(f"the template builds a value longer than {MAX_VALUE_CHARS:,}")
        return "".join(texts)

    def budgeted(self, iterable: Any) -> Iterator[Any]:
        for item in iterable:
            self.steps.spend()
            yield item


def build(globals_: dict[str, Any]) -> CappedSandbox:
    environment = CappedSandbox()
    environment.globals.clear()
    environment.filters.clear()
    environment.tests.clear()
    environment.globals.update(globals_)
    environment.globals[_BUDGET] = environment.budgeted
    return environment


def render(environment: CappedSandbox, source: str) -> str:
    """Parse with structural caps, count every loop iteration, and stop output at the cap."""
    if len(source) > MAX_TEMPLATE_CHARS:
        raise LimitExceeded(f"the SQL template is longer than {MAX_TEMPLATE_CHARS:,} characters")
    _check_brackets(environment, source)
    tree = environment.parse(source)
    _check_structure(tree)
    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Call(nodes.Name(_BUDGET, "load"), [loop.iter], [], None, None, lineno=loop.lineno)
    template = environment.from_string(tree)
    out: list[str] = []
    total = 0
    for chunk in template.generate():
        total += len(chunk)
        if total > MAX_OUTPUT_CHARS:
            raise LimitExceeded(f"the rendered SQL is longer than {MAX_OUTPUT_CHARS:,} characters")
        out.append(chunk)
    return "".join(out)


_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


def _check_brackets(environment: CappedSandbox, source: str) -> None:
    """Bracket depth from the tokens, before Jinja's recursive-descent parser sees them.

    Parentheses leave no node in the tree, so ``_check_structure`` cannot see them; without this,
    what stops ``((((1))))`` 300 deep is Python's recursion limit, which an embedding process (mypy
    in a test run, for one) may have raised. Only a template with that many brackets in all is lexed.
    """
    if source.count("(") + source.count("[") + source.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for _line, token, value in environment.lex(source):
        if token != TOKEN_OPERATOR:
            continue
        if value in _OPENING:
            depth += 1
            if depth > MAX_DEPTH:
                raise LimitExceeded(f"the SQL template nests expressions more than {MAX_DEPTH} deep")
        elif value in _CLOSING:
            depth -= 1


_BLOCKS = (nodes.For, nodes.If, nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.With, nodes.Scope)


def _check_structure(tree: nodes.Template) -> None:
    """Iteratively (a recursive walk is what deep nesting would break): node count, block and node depth."""
    count = 0
    stack: list[tuple[nodes.Node, int, int]] = [(tree, 0, 0)]
    while stack:
        node, blocks, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise LimitExceeded(f"the SQL template has more than {MAX_NODES:,} elements")
        if depth > MAX_DEPTH:
            raise LimitExceeded(f"the SQL template nests expressions more than {MAX_DEPTH} deep")
        if isinstance(node, _BLOCKS):
            blocks += 1
            if blocks > MAX_NESTING:
                raise LimitExceeded(f"the SQL template nests blocks more than {MAX_NESTING} deep")
        # `elif` branches are If nodes inside their If, but compile to flat `elif`s, not nesting.
        elifs = {id(n) for n in node.elif_} if isinstance(node, nodes.If) else set()
        for child in node.iter_child_nodes():
            stack.append((child, blocks - 1 if id(child) in elifs else blocks, depth + 1))
