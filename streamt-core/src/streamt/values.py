"""Immutable value types that cost nothing to define.

Every plugin module imports the SDK's registration types, and the CLI imports ``ErrorCode``,
``Diagnostic``, ``Result`` and ``PluginInfo``, on every start, ``streamt --help`` included. As
``attrs`` classes they cost each start the import of ``attrs`` and the methods it compiles for
every class; ``dataclasses`` compiles about six methods per class as well (0.7 ms a class on the
project's machines). A ``Value`` subclass is a plain class with ``__slots__`` whose methods are
the ones below, already in bytecode.

A subclass lists its fields, in constructor order, as ``__slots__ = _fields = (...)``, annotates
them, and writes an ``__init__`` whose parameters are exactly those fields in that order, passing
them on to ``self._fill(...)`` (a test holds every subclass to it). It then behaves as the
``attrs.frozen`` class it replaces: fields cannot be set after construction, equality and
hashing compare the class and every field, the repr names every field, and ``copy``, ``deepcopy``
and ``pickle`` work. ``replace(value, name=...)`` is their ``attrs.evolve``.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

V = TypeVar("V", bound="Value")


class Value:
    """Base of the immutable value types (see the module's docstring)."""

    __slots__: tuple[str, ...] = ()
    _fields: ClassVar[tuple[str, ...]] = ()  # constructor order; a subclass's __slots__ is the same tuple

    def _fill(self, *values: Any) -> None:
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Value)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((self.__class__, *self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self) -> tuple[type[Value], tuple[Any, ...]]:
        # copy, deepcopy and pickle rebuild through __init__, which takes the fields in this order.
        return self.__class__, self._values()


def replace(value: V, **changes: Any) -> V:
    """A copy of ``value`` with the given fields changed, as ``dataclasses.replace`` does."""
    fields = {name: getattr(value, name) for name in value._fields}
    unknown = sorted(set(changes) - set(fields))
    if unknown:
        raise TypeError(f"{type(value).__name__} has no field(s) {', '.join(unknown)}")
    return type(value)(**{**fields, **changes})
