"""``ReadOnlyMap``: an immutable mapping, for configuration sections core keeps but does not read."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class ReadOnlyMap(Mapping[str, Any]):
    """A mapping that cannot be changed after construction (unlike ``MappingProxyType``, it pickles)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items: dict[str, Any] = dict(items or {})

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"ReadOnlyMap({self._items!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyMap, (self._items,))


def read_only(value: Any) -> Any:
    """``value`` with every map made a ``ReadOnlyMap`` and every list a tuple, at any depth."""
    if isinstance(value, Mapping):
        return ReadOnlyMap({str(k): read_only(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(read_only(v) for v in value)
    return value
