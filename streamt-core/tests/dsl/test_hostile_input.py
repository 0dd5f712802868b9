"""Bad input never yields a traceback or a hang: always one envelope with a registered code and exit 1."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamt.cli import run
from streamt.errors import Codes

MINIMAL = "project: {name: p}\nruntime: {kafka: {bootstrap_servers: 'localhost:9092'}}\n"


def validate(project: Path) -> tuple[int, dict]:
    out = io.StringIO()
    code = run(["-o", "json", "validate", "-p", str(project)], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def assert_structured_error(project: Path, expected_code: str) -> dict:
    code, envelope = validate(project)
    assert code == 1
    assert envelope["status"] == "error"
    codes = [e["code"] for e in envelope["errors"]]
    assert expected_code in codes, codes
    for error in envelope["errors"]:
        assert error["code"] in Codes and error["message"] and error["suggestion"]
    return envelope


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("project: [unclosed\n", "stream_project.yml:"),
        ("project: {name: a}\nproject: {name: b}\n", "duplicate key"),
        ("", "empty"),
        ("- just\n- a list\n", "map"),
        ("project:\n" + "  " * 0 + "[" * 5000 + "]" * 5000 + "\n", "stream_project.yml"),
        (BOMB, "nodes"),
    ],
    ids=["malformed", "duplicate-keys", "empty", "not-a-map", "deeply-nested", "billion-laughs"],
)
def test_malformed_project_file_is_e501(tmp_path: Path, content: str, needle: str) -> None:
    (tmp_path / "stream_project.yml").write_text(content)
    envelope = assert_structured_error(tmp_path, "E501_PARSE_ERROR")
    assert needle in json.dumps(envelope)


def test_binary_file_is_e501(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_bytes(b"\x00\x01\xff binary")
    assert_structured_error(tmp_path, "E501_PARSE_ERROR")


def test_parse_error_carries_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(MINIMAL)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "bad.yml").write_text("models:\n  - name: a\n    sql: [oops\n")
    envelope = assert_structured_error(tmp_path, "E501_PARSE_ERROR")
    location = envelope["errors"][0]["location"]
    assert location.startswith("models/bad.yml:") and location.count(":") == 2


def test_symlink_loop_in_project_tree_terminates(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(MINIMAL)
    (tmp_path / "models").mkdir()
    os.symlink(tmp_path / "models", tmp_path / "models" / "loop")
    os.symlink(tmp_path / "models" / "self.yml", tmp_path / "models" / "self.yml")
    code, envelope = validate(tmp_path)
    assert code == 1 and envelope["errors"][0]["code"] == "E501_PARSE_ERROR"


def test_wrong_types_name_the_path(tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(
        MINIMAL + "sources:\n  - name: s\n    topic: t\n    columns:\n      - name: c\n        required: maybe\n"
    )
    envelope = assert_structured_error(tmp_path, "E501_PARSE_ERROR")
    assert "sources[0].columns[0].required" in envelope["errors"][0]["message"]


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
_keys = st.sampled_from(
    ["project", "runtime", "models", "sources", "name", "sql", "kafka", "topic", "tests"]
) | st.text(max_size=8)
_documents = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=5), max_leaves=30
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=_documents)
def test_any_document_yields_one_valid_envelope(tmp_path: Path, document: object) -> None:
    (tmp_path / "stream_project.yml").write_text(json.dumps(document))
    code, envelope = validate(tmp_path)
    assert set(envelope) == {"status", "command", "data", "errors", "warnings"}
    assert envelope["command"] == "validate"
    assert code == (0 if envelope["status"] == "ok" else 1)
    assert all(e["code"] != "E999_INTERNAL_ERROR" for e in envelope["errors"]), envelope["errors"]
