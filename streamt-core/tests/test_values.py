"""``streamt.values.Value``: the plain immutable classes behave as the attrs classes they replaced."""

from __future__ import annotations

import copy
import inspect
import pickle

import pytest
from streamt.capabilities import ConfigSection, KnownKind, Materialization
from streamt.errors import Codes, Diagnostic, ErrorCode
from streamt.plugins import PluginInfo
from streamt.result import Result
from streamt.values import Value, replace


def _value_classes() -> list[type[Value]]:
    found, todo = [], list(Value.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return sorted(found, key=lambda c: c.__qualname__)


def test_the_start_up_value_types_are_all_values() -> None:
    names = {cls.__name__ for cls in _value_classes()}
    assert {"ErrorCode", "Diagnostic", "Result", "PluginInfo", "Materialization", "KnownKind"} <= names


@pytest.mark.parametrize("cls", _value_classes(), ids=lambda c: c.__qualname__)
def test_init_takes_exactly_the_fields_in_slot_order(cls: type[Value]) -> None:
    # _fill() is positional: an __init__ that lists its fields in another order would swap them.
    parameters = list(inspect.signature(cls.__init__).parameters)[1:]
    assert parameters == list(cls._fields)
    assert cls.__slots__ is cls._fields
    assert set(cls._fields) <= set(inspect.get_annotations(cls)), "every field is annotated"


def test_fields_cannot_be_set_or_deleted() -> None:
    kind = KnownKind("materialization", "topic", "kafka")
    with pytest.raises(AttributeError, match="immutable"):
        kind.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del kind.name
    with pytest.raises(AttributeError):
        kind.undeclared = 1  # type: ignore[attr-defined]


def test_equality_and_hash_compare_the_class_and_every_field() -> None:
    a = KnownKind("materialization", "topic", "kafka")
    assert a == KnownKind("materialization", "topic", "kafka")
    assert hash(a) == hash(KnownKind("materialization", "topic", "kafka"))
    assert a != KnownKind("materialization", "topic", "kafka", "described")
    assert {a, KnownKind("materialization", "topic", "kafka")} == {a}
    # The same fields in another class are another value.
    assert Materialization("x", "d", "e") != KnownKind("x", "d", "e")
    assert Materialization("x", "d", "e") != ("x", "d", "e", (), True, "materialization")


def test_a_value_with_a_dict_field_is_unhashable_as_under_attrs() -> None:
    with pytest.raises(TypeError):
        hash(Diagnostic(Codes.E900_USAGE_ERROR, "m", details={"a": 1}))


def test_repr_names_every_field() -> None:
    code = ErrorCode("E777_SOMETHING", "Something")
    assert repr(code) == "ErrorCode(code='E777_SOMETHING', meaning='Something', owner='streamt-core')"


def test_defaults_are_fresh_per_instance() -> None:
    first, second = Result("a"), Result("b")
    first.data["k"] = 1
    assert second.data == {}
    assert Diagnostic(Codes.E900_USAGE_ERROR, "m").details == {}


def test_replace_copies_with_changes_and_refuses_unknown_fields() -> None:
    diagnostic = Diagnostic(Codes.E900_USAGE_ERROR, "m", "s", "here", {"a": 1})
    moved = replace(diagnostic, location="there")
    assert moved == Diagnostic(Codes.E900_USAGE_ERROR, "m", "s", "there", {"a": 1})
    assert diagnostic.location == "here"
    with pytest.raises(TypeError, match="no field"):
        replace(diagnostic, where="x")


def test_construction_checks_still_run_on_replace() -> None:
    with pytest.raises(ValueError, match="malformed error code"):
        replace(ErrorCode("E777_SOMETHING", "Something"), code="nope")


def test_copy_deepcopy_and_pickle_round_trip() -> None:
    info = PluginInfo("kafka", "streamt-kafka", "0.1.0", "streamt_kafka.plugin", ("streamt_commands",))
    result = Result("plugins", data={"count": 1}, errors=(Diagnostic(Codes.E900_USAGE_ERROR, "m"),))
    for value in (info, result):
        assert copy.copy(value) == value
        assert copy.deepcopy(value) == value
        assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(result).data is not result.data


def test_properties_of_a_subclass_still_work() -> None:
    section = ConfigSection("runtime.flink", dict, {}, "flink")
    assert (section.block, section.name) == ("runtime", "flink")
