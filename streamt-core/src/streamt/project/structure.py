"""cattrs structuring of normalised blocks into the immutable model, with strict scalar types.

cattrs' default hooks coerce (``str(5)``, ``bool("no")``); a project file with the wrong type must be
an ``E501_PARSE_ERROR`` instead, so scalars are checked exactly. Failures come back as
``(path, message)`` pairs relative to the block, for the loader to turn into located diagnostics.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn

from streamt.project.readonly import ReadOnlyMap

T = TypeVar("T")


class StructureError(Exception):
    def __init__(self, problems: list[tuple[tuple[Any, ...], str]]) -> None:
        super().__init__(problems[0][1] if problems else "invalid value")
        self.problems = problems


def _strict_str(value: Any, _type: Any) -> str:
    if isinstance(value, str):
        return value
    # Unquoted numbers in name-like fields (`version: 1.0`, `group: 7`) are a YAML accident, not a type error.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"expected a string, got {_kind(value)}")


def _strict_int(value: Any, _type: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise TypeError(f"expected an integer, got {_kind(value)}")


def _strict_float(value: Any, _type: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"expected a number, got {_kind(value)}")


def _strict_bool(value: Any, _type: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {_kind(value)}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    names = {dict: "a map", list: "a list", str: "a string", bool: "a boolean", int: "an integer", float: "a number"}
    return names.get(type(value), type(value).__name__)


def _is_sequence(type_: Any) -> bool:
    return get_origin(type_) in (tuple, list)


def _is_mapping(type_: Any) -> bool:
    return get_origin(type_) is dict


def _is_optional(type_: Any) -> bool:
    return get_origin(type_) in (Union, types.UnionType) and len(get_args(type_)) == 2 and type(None) in get_args(type_)


# cattrs would iterate a string into characters (``tags: pii`` -> ``('p', 'i', 'i')``) or fail with a
# Python message (``'int' object is not iterable``); a project file needs the expected type instead,
# so lists, maps and blocks check the YAML node's own type before structuring what is inside.


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(detailed_validation=True)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(float, _strict_float)
    converter.register_structure_hook(bool, _strict_bool)
    converter.register_structure_hook_func(lambda t: t is Any, lambda value, _t: value)
    # Plugin sections, already structured by their owners (the loader puts them in; no file can).
    converter.register_structure_hook(ReadOnlyMap, lambda value, _t: value)

    # Lists, maps and optionals find their element's hook once per type, not once per value.
    def sequence(type_: Any) -> Callable[[Any, Any], Any]:
        element = get_args(type_)[0] if get_args(type_) else Any
        structure_element = converter.get_structure_hook(element)
        as_tuple = get_origin(type_) is tuple

        def hook(value: Any, _type: Any) -> Any:
            if not isinstance(value, list):
                raise TypeError(f"expected a list, got {_kind(value)}")
            items, errors = [], []
            for index, item in enumerate(value):
                try:
                    items.append(structure_element(item, element))
                except Exception as exc:
                    exc.add_note(f"Structuring {type_} @ index {index}")
                    errors.append(exc)
            if errors:
                raise cattrs.IterableValidationError("invalid list", errors, type_)
            return tuple(items) if as_tuple else items

        return hook

    def mapping(type_: Any) -> Callable[[Any, Any], Any]:
        key_type, value_type = get_args(type_) or (Any, Any)
        structure_key = converter.get_structure_hook(key_type)
        structure_value = converter.get_structure_hook(value_type)

        def hook(value: Any, _type: Any) -> Any:
            if not isinstance(value, dict):
                raise TypeError(f"expected a map, got {_kind(value)}")
            out, errors = {}, []
            for key, item in value.items():
                try:
                    out[structure_key(key, key_type)] = structure_value(item, value_type)
                except Exception as exc:
                    exc.add_note(f"Structuring {type_} @ key {key!r}")
                    errors.append(exc)
            if errors:
                raise cattrs.IterableValidationError("invalid map", errors, type_)
            return out

        return hook

    def optional(type_: Any) -> Callable[[Any, Any], Any]:
        # What cattrs' own ``_structure_optional`` does on every call: None, else the other member's hook.
        first, second = get_args(type_)
        inner = first if second is type(None) else second
        structure_inner = converter.get_structure_hook(inner)

        def hook(value: Any, _type: Any) -> Any:
            return None if value is None else structure_inner(value, inner)

        return hook

    def block(type_: Any) -> Callable[[Any, Any], Any]:
        inner = make_dict_structure_fn(type_, converter)

        def hook(value: Any, cls: Any) -> Any:
            if type(value) is type_:  # built by the loader itself (a model's recorded dependencies)
                return value
            if not isinstance(value, dict):
                raise TypeError(f"expected a map, got {_kind(value)}")
            return inner(value, cls)

        return hook

    converter.register_structure_hook_factory(_is_sequence, sequence)
    converter.register_structure_hook_factory(_is_mapping, mapping)
    converter.register_structure_hook_factory(_is_optional, optional)
    converter.register_structure_hook_factory(attrs.has, block)
    return converter


CONVERTER = _make_converter()


def structure(data: Any, cls: type[T]) -> T:
    """Build ``cls`` from ``data`` or raise ``StructureError`` listing every problem.

    ``cls`` is a block (an ``attrs`` class, from a map) or, for a plugin section that is one value
    (``flink_cluster``), a scalar type checked as strictly as a block's fields are.
    """
    if not isinstance(data, dict) and attrs.has(cls):
        raise StructureError([((), f"expected a map, got {_kind(data)}")])
    try:
        return CONVERTER.structure(data, cls)
    except Exception as exc:  # cattrs raises exception groups; flatten them into path + message
        problems = _flatten(exc, ())
        raise StructureError(problems or [((), str(exc))]) from None


def _flatten(exc: BaseException, path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[tuple[tuple[Any, ...], str]] = []
        for inner in exc.exceptions:
            note = _note_of(inner)
            out.extend(_flatten(inner, (*path, note) if note is not None else path))
        return out
    if isinstance(exc, KeyError):
        return [(path, "required field missing")]
    message = str(exc) or type(exc).__name__
    if isinstance(exc, (ValueError, TypeError)) and "expected" not in message:
        message = f"invalid value ({message})"
    return [(path, message)]


def _note_of(exc: BaseException) -> Any:
    for note in getattr(exc, "__notes__", ()):
        # cattrs notes: "Structuring class Model @ attribute name", "... @ index 2", "... @ key 'x'"
        for marker in ("@ attribute ", "@ index ", "@ key "):
            if marker in note:
                raw = note.split(marker, 1)[1]
                if marker == "@ index ":
                    return int(raw)
                return raw.strip("'")
    return None
