"""What a plugin supplies is shown safely: built-in exception classes only, names of name characters."""

from __future__ import annotations

from streamt.untrusted import MAX_IDENTIFIER, exception_name, identifier


class Ghp1234Token(ConnectionRefusedError):
    pass


class Faked(Exception):
    pass


Faked.__module__ = "builtins"  # a plugin may claim to be a built-in
Faked.__name__ = "Hunter2Secret"


def test_a_plugin_class_is_shown_as_its_nearest_builtin_base() -> None:
    assert exception_name(Ghp1234Token()) == "ConnectionRefusedError"
    assert exception_name(Faked()) == "Exception"
    assert exception_name(KeyError("x")) == "KeyError"
    assert exception_name(SystemExit(3)) == "SystemExit"


def test_an_identifier_keeps_name_characters_only_and_is_bounded() -> None:
    assert identifier("streamt-exporter-odcs") == "streamt-exporter-odcs"
    assert identifier("docs dictionary") == "docs dictionary"
    assert identifier("evil\x1b[31m\nname") == "evil??31m?name"
    assert len(identifier("a" * 500)) == MAX_IDENTIFIER and identifier("a" * 500).endswith("...")
