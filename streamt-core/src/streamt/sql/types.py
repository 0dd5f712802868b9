"""Declared Flink SQL column types, parsed into a small tree that exporters map to other type systems.

``parse_type("ARRAY<ROW<id BIGINT NOT NULL, tags MAP<STRING, INT>>>")`` returns a ``FlinkType``; a
type this module does not know (``RAW``, ``INTERVAL``, structured types, ...) or malformed text raises
``FlinkTypeError``. Callers fail closed on it instead of guessing a mapping. Parameters are checked
against Flink's ranges (``VARCHAR(n)`` n >= 1, ``DECIMAL(p, s)`` 1 <= p <= 38 and 0 <= s <= p,
``TIMESTAMP(p)`` 0 <= p <= 9); omitted parameters stay omitted (``params == ()``).
"""

from __future__ import annotations

import re

import attrs

_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)+`)|([A-Za-z_][A-Za-z0-9_$]*)|(\d+)|('(?:[^']|'')*')|([<>(),]))")
_LENGTH = {"CHAR", "VARCHAR", "BINARY", "VARBINARY"}
_PRECISION = {"TIME": 9, "TIMESTAMP": 9, "TIMESTAMP_LTZ": 9}
_PLAIN = {"STRING", "BYTES", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DATE"}
_ALIASES = {"INTEGER": "INT", "DEC": "DECIMAL", "NUMERIC": "DECIMAL"}
_MAX_LENGTH = 2147483647


# A declared type is words and parenthesized numbers in any order (VARCHAR(8) NOT NULL, TIMESTAMP(3) WITH
# LOCAL TIME ZONE, INTERVAL YEAR(2) TO MONTH), or a balanced ARRAY/MAP/ROW/MULTISET<...>. Each alternative
# starts with its own character, so matching stays linear, and no quote or semicolon can reach a DDL.
_DECLARED_SIMPLE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?: ?\([0-9, ]+\)| [A-Za-z][A-Za-z0-9_]*)*$")
_DECLARED_COMPLEX = re.compile(r"^(ARRAY|MAP|ROW|MULTISET)\s*<.*>$", re.IGNORECASE | re.DOTALL)


def declared_type_problem(sql_type: str) -> str | None:
    """Why ``sql_type`` cannot be declared as a column type (validate refuses it, Flink DDL never sees it), or None.

    This is the one rule shared by validation and the Flink DDL builder, so that a project ``validate``
    accepts always compiles. It checks shape, not meaning: ``parse_type`` decides what a type maps to.
    """
    text = " ".join(sql_type.split())
    if not text:
        return "it is blank"
    if _DECLARED_COMPLEX.match(text) and _balanced(text):
        return None
    if _DECLARED_SIMPLE.match(text):
        return None
    return "it is not a Flink SQL type such as STRING, BIGINT, DECIMAL(10, 2) or ARRAY<STRING>"


def _balanced(text: str) -> bool:
    closing = {"<": ">", "(": ")"}
    expected: list[str] = []
    for char in text:
        if char in closing:
            expected.append(closing[char])
        elif char in ">)" and (not expected or expected.pop() != char):
            return False
    return not expected and text.isascii()


class FlinkTypeError(ValueError):
    """The type text is malformed or names a type without a supported mapping."""


@attrs.frozen
class Field:
    name: str
    type: FlinkType
    description: str | None = None


@attrs.frozen
class FlinkType:
    """One parsed Flink SQL type.

    * ``name`` — canonical (``INTEGER`` -> ``INT``, ``TIMESTAMP WITH LOCAL TIME ZONE`` -> ``TIMESTAMP_LTZ``).
    * ``params`` — length, precision and scale as written (``DECIMAL(10, 2)`` -> ``(10, 2)``).
    * ``nullable`` — ``False`` for ``NOT NULL``.
    * ``args`` — the element type of ARRAY/MULTISET, the key and value types of MAP.
    * ``fields`` — the fields of a ROW.
    """

    name: str
    params: tuple[int, ...] = ()
    nullable: bool = True
    args: tuple[FlinkType, ...] = ()  # ARRAY/MULTISET element; MAP key and value
    fields: tuple[Field, ...] = ()  # ROW


def parse_type(text: object) -> FlinkType:
    """The declared Flink SQL type ``text`` as a ``FlinkType`` tree; ``FlinkTypeError`` when malformed."""
    if not isinstance(text, str) or not text.strip():
        raise FlinkTypeError(f"{text!r} is not a type name")
    parser = _Parser(text)
    result = parser.type()
    if parser.peek() is not None:
        raise FlinkTypeError(f"unexpected {parser.peek()!r} in {text!r}")
    return result


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = _TOKEN.match(text, position)
            if match is None:
                raise FlinkTypeError(f"unexpected character {text[position:].strip()[:1]!r} in {text!r}")
            self.tokens.append(next(group for group in match.groups() if group is not None))
            position = match.end()
        self.index = 0

    def peek(self, offset: int = 0) -> str | None:
        at = self.index + offset
        return self.tokens[at] if at < len(self.tokens) else None

    def word(self, offset: int = 0) -> str:
        token = self.peek(offset)
        return token.upper() if token is not None and token[0].isalpha() else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token.upper() != expected):
            wanted = repr(expected) if expected else "more"
            raise FlinkTypeError(f"expected {wanted} in {self.text!r}")
        self.index += 1
        return token

    def integers(self) -> tuple[int, ...]:
        if self.peek() != "(":
            return ()
        self.take("(")
        values = []
        while True:
            token = self.take()
            if not token.isdigit():
                raise FlinkTypeError(f"expected a number in {self.text!r}")
            values.append(int(token))
            token = self.take()
            if token == ")":
                return tuple(values)
            if token != ",":
                raise FlinkTypeError(f"expected ',' or ')' in {self.text!r}")

    def type(self) -> FlinkType:
        result = self._base()
        while self.word() in ("ARRAY", "MULTISET"):  # postfix form: `INT ARRAY`
            result = FlinkType(self.take().upper(), args=(result,), nullable=self._nullable())
        return result

    def _nullable(self) -> bool:
        if self.word() == "NOT" and self.word(1) == "NULL":
            self.index += 2
            return False
        if self.word() == "NULL":
            self.index += 1
        return True

    def _base(self) -> FlinkType:
        name = self.take().upper()
        name = _ALIASES.get(name, name)
        if name == "DOUBLE" and self.word() == "PRECISION":
            self.index += 1
        if name in ("ARRAY", "MULTISET", "MAP"):
            self.take("<")
            args = [self.type()]
            if name == "MAP":
                self.take(",")
                args.append(self.type())
            self.take(">")
            return FlinkType(name, args=tuple(args), nullable=self._nullable())
        if name == "ROW":
            return FlinkType(name, fields=self._fields(), nullable=self._nullable())
        params = self.integers()
        if name == "TIMESTAMP":
            name = self._time_zone()
        self._check(name, params)
        return FlinkType(name, params, nullable=self._nullable())

    def _time_zone(self) -> str:
        if self.word() == "WITHOUT" and [self.word(i) for i in (1, 2)] == ["TIME", "ZONE"]:
            self.index += 3
            return "TIMESTAMP"
        if self.word() == "WITH" and [self.word(i) for i in (1, 2, 3)] == ["LOCAL", "TIME", "ZONE"]:
            self.index += 4
            return "TIMESTAMP_LTZ"
        if self.word() == "WITH":
            raise FlinkTypeError(f"TIMESTAMP WITH TIME ZONE is not supported by Flink ({self.text!r})")
        return "TIMESTAMP"

    def _fields(self) -> tuple[Field, ...]:
        close = {"<": ">", "(": ")"}.get(self.take())
        if close is None:
            raise FlinkTypeError(f"expected '<' or '(' after ROW in {self.text!r}")
        fields: list[Field] = []
        while True:
            raw = self.take()
            if not (raw[0].isalpha() or raw[0] in "_`"):
                raise FlinkTypeError(f"expected a field name in {self.text!r}")
            name = raw[1:-1].replace("``", "`") if raw.startswith("`") else raw
            field_type = self.type()
            description = None
            if (self.peek() or "").startswith("'"):
                description = self.take()[1:-1].replace("''", "'")
            fields.append(Field(name, field_type, description))
            token = self.take()
            if token == close:
                break
            if token != ",":
                raise FlinkTypeError(f"expected ',' or {close!r} in {self.text!r}")
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise FlinkTypeError(f"duplicate ROW field name in {self.text!r}")
        return tuple(fields)

    def _check(self, name: str, params: tuple[int, ...]) -> None:
        if name in _PLAIN:
            ok = not params
        elif name in _LENGTH:
            ok = len(params) <= 1 and all(1 <= p <= _MAX_LENGTH for p in params)
        elif name in _PRECISION:
            ok = len(params) <= 1 and all(0 <= p <= _PRECISION[name] for p in params)
        elif name == "DECIMAL":
            ok = (
                len(params) <= 2
                and all(1 <= p <= 38 for p in params[:1])
                and all(0 <= s <= params[0] for s in params[1:])
            )
        else:
            raise FlinkTypeError(f"{name} has no supported mapping ({self.text!r})")
        if not ok:
            raise FlinkTypeError(f"invalid parameters {params} for {name} in {self.text!r}")
