"""``streamt.sdk`` is the documented public surface: every name resolves and is documented."""

from __future__ import annotations

import inspect
import subprocess
import sys

import attrs
import pytest
import streamt.sdk as sdk
from streamt.sdk import protocols
from streamt.values import Value

PUBLIC = sorted(sdk.__all__)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(sdk, name) is not None
    assert name in dir(sdk)


def _documented(value: object) -> bool:
    return inspect.isclass(value) or inspect.isfunction(value)


@pytest.mark.parametrize("name", [n for n in PUBLIC if _documented(getattr(sdk, n))])
def test_every_public_class_and_function_has_a_docstring(name: str) -> None:
    value = getattr(sdk, name)
    assert (value.__doc__ or "").strip(), f"streamt.sdk.{name} has no docstring"


def _fields(value: object) -> list[str] | None:
    """The field names of an attrs class or a ``streamt.values.Value`` class; None for anything else."""
    if attrs.has(value):
        return [f.name for f in attrs.fields(value)]  # type: ignore[arg-type]
    if inspect.isclass(value) and issubclass(value, Value):
        return list(value._fields)
    return None


@pytest.mark.parametrize("name", [n for n in PUBLIC if _fields(getattr(sdk, n)) is not None])
def test_every_field_of_a_value_type_is_documented(name: str) -> None:
    value = getattr(sdk, name)
    public = [f for f in _fields(value) or [] if not f.startswith("_")]  # private: not the SDK surface
    missing = [f for f in public if f"``{f}``" not in (value.__doc__ or "")]
    assert not missing, f"streamt.sdk.{name} does not document its fields {missing}"


@pytest.mark.parametrize("name", protocols.__all__)
def test_every_protocol_member_has_a_docstring(name: str) -> None:
    protocol = getattr(protocols, name)
    for member_name, member in vars(protocol).items():
        if member_name.startswith("_") and member_name != "__call__":
            continue
        target = member.fget if isinstance(member, property) else member
        if callable(target):
            assert (target.__doc__ or "").strip(), f"{name}.{member_name} has no docstring"


def test_all_lists_exactly_the_lazy_exports() -> None:
    assert sorted(sdk.__all__) == sorted(["__version__", "hookimpl", *sdk._EXPORTS])


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        sdk.Nope  # noqa: B018


def test_importing_the_sdk_is_cheap() -> None:
    # Plugins import streamt.sdk at module level while the CLI builds --help:
    # it must not pull in the project loader, click, the compiler or attrs (the registrations
    # are streamt.values classes so that no start of the CLI pays for attrs).
    code = (
        "import sys, streamt.sdk; from streamt.sdk import hookimpl, Materialization, Codes;"
        "heavy = [m for m in ('streamt.project', 'streamt.compile', 'click', 'ruamel', 'attrs') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    assert out == ""


def test_sdk_names_are_the_core_objects() -> None:
    from streamt.artifacts import Artifact
    from streamt.capabilities import StateBackend

    assert sdk.Artifact is Artifact
    assert sdk.StateBackendRegistration is StateBackend


def test_the_reference_page_is_generated_from_the_docstrings() -> None:
    from pathlib import Path

    from streamt.sdk.reference import render

    page = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"
    assert page.read_text() == render(), "regenerate it: python -m streamt.sdk.reference > docs/sdk.md"


def test_no_hook_argument_or_answer_is_typed_any() -> None:
    import re

    from streamt import hookspecs

    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "streamt_spec"):
            annotations = " ".join(str(a) for a in function.__annotations__.values())
            assert not re.search(r"\bAny\b", annotations), f"{name} is typed with Any: {annotations}"


def test_every_public_sdk_name_method_and_property_is_documented() -> None:
    from pathlib import Path

    from streamt.sdk.reference import public_members

    page = (Path(__file__).resolve().parents[2] / "docs" / "sdk.md").read_text()
    undocumented = []
    for name in sdk.__all__:
        value = getattr(sdk, name)
        if name != "__version__":
            assert f"`{name}`" in page, f"{name} is not on docs/sdk.md"
        if not inspect.isclass(value) or getattr(value, "_is_protocol", False):
            continue
        for member_name, member in public_members(value):
            function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
            if not inspect.getdoc(function):
                undocumented.append(f"{name}.{member_name}")
            assert f"- `{member_name}" in page
    assert undocumented == [], "give these a docstring, then regenerate docs/sdk.md"
