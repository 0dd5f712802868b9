"""The YAML parse cache: exact round trips, only plain secret-free documents, hostile entries ignored.

Every command's output must be the same bytes with a cold cache, a warm cache and the cache off.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_material import SHARED
from streamt.cli import run
from streamt.errors import StreamtError
from streamt.project import parse_cache, yaml_io
from streamt.project.parse_cache import (
    MISS,
    ParseCache,
    cache_root,
    cacheable,
    decode_entry,
    encode_entry,
    encode_value,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = SHARED / "spec" / "examples"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("STREAMT_CACHE_DIR", str(root))
    monkeypatch.delenv("STREAMT_NO_CACHE", raising=False)
    return root


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.json"))


def typed(value: Any) -> Any:
    """``value`` with every type and every key order spelled out (``==`` says ``1 == 1.0 == True``)."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, repr(value))


def stored(key: str, value: Any) -> Any:
    payload = encode_value(value)
    assert payload is not None
    return decode_entry(key, encode_entry(key, payload))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- what is stored, and that it comes back exactly ---------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values)
def test_plain_values_round_trip_with_their_types_and_key_order(value: Any) -> None:
    if cacheable(value):
        assert typed(stored("k" * 64, value)) == typed(value)


def test_bool_int_float_and_key_order_survive() -> None:
    value = {"z": 1, "a": 1.0, "m": True, "b": 0, "c": False, "d": -0.0, "e": 10**30, "f": 1e-300, "g": None}
    assert cacheable(value)
    assert typed(stored("k" * 64, value)) == typed(value)
    assert list(stored("k" * 64, value)) == ["z", "a", "m", "b", "c", "d", "e", "f", "g"]


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        float("inf"),
        {1: "int key"},
        {True: "bool key"},
        {None: "null key"},
        {"a": (1, 2)},
        {"a": {1, 2}},
        {"a": b"bytes"},
        {"sasl_password": "hunter2"},
        {"runtime": {"registry": {"password": "${PW:-fallback}"}}},
        {"credentials": {"user": "u"}},
        {"url": "http://user:hunter2@registry:8081"},
        {"url": "http://registry:8081/?password=hunter2"},
        {"url": "http://registry:8081/x?a=1"},  # any query may hold a credential (?sig=...)
        [{"api_token": 5}],
    ],
)
def test_not_plain_or_holding_a_literal_secret_is_never_stored(value: Any) -> None:
    assert not cacheable(value)


@pytest.mark.parametrize(
    "value",
    [
        {"password": "${PW}"},
        {"password": None},
        {"dsn_env": "PG_DSN"},
        {"url": "http://registry:8081/x"},
        {"sql": "SELECT * FROM a WHERE b = 'x://y'"},
    ],
)
def test_references_to_secrets_are_stored(value: Any) -> None:
    assert cacheable(value)


def test_the_key_names_the_parser_and_the_bytes(tmp_path: Path) -> None:
    one, other = ParseCache(tmp_path, "parser 1"), ParseCache(tmp_path, "parser 2")
    assert one.key(b"a: 1\n") != other.key(b"a: 1\n")
    assert one.key(b"a: 1\n") != one.key(b"a: 1 \n")
    assert one.key(b"a: 1\n") == ParseCache(tmp_path / "elsewhere", "parser 1").key(b"a: 1\n")


# --- load_yaml with the cache ------------------------------------------------------------------------


def test_a_warm_entry_is_read_instead_of_parsing(cache_dir: Path, tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path / "p" / "models.yml", "models:\n  - {name: a, sql: 'SELECT 1', n: 3, f: 1.5, enabled: yes}\n")
    first = yaml_io.load_yaml(path, "models.yml")
    [entry] = entries(cache_dir)
    assert entry.parent.parent == cache_dir / "parse-v1" and entry.parent.name == entry.name[:2]

    def refuse(*_args: Any) -> Any:
        raise AssertionError("parsed although the entry is warm")

    monkeypatch.setattr(yaml_io, "_parse", refuse)
    assert typed(yaml_io.load_yaml(path, "models.yml")) == typed(first)
    path.write_text("models: []\n", encoding="utf-8")  # other bytes: a miss, so it is parsed
    with pytest.raises(AssertionError, match="parsed although"):
        yaml_io.load_yaml(path, "models.yml")


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1}\nuse: *b\n",  # anchors and aliases
        "base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2\n",  # merge keys
        "a: !!binary aGVsbG8=\n",  # other tags
        "1: a\nnull: b\n",  # keys that are not strings
        "a: .inf\nb: .nan\n",  # non-finite floats
        "kafka: {sasl_password: hunter2}\n",  # a literal secret
        "registry: {url: 'http://u:hunter2@r:8081'}\n",
        "sql: 'SELECT a & b'\n",  # '&' anywhere: conservatively treated like an anchor
        "",  # empty file
    ],
)
def test_documents_outside_the_plain_secret_free_path_are_parsed_every_time(cache_dir: Path, tmp_path, text) -> None:
    path = write(tmp_path / "p" / "x.yml", text)
    assert typed(yaml_io.load_yaml(path, "x.yml")) == typed(yaml_io.parse_yaml(text, "x.yml"))
    assert entries(cache_dir) == []


def test_errors_are_never_stored_and_stay_the_same(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "x.yml", "a: 1\na: 2\n")
    seen = []
    for _ in range(2):
        with pytest.raises(StreamtError, match="duplicate key 'a'") as raised:
            yaml_io.load_yaml(path, "x.yml")
        seen.append(raised.value.diagnostics)
    assert seen[0] == seen[1]
    assert entries(cache_dir) == []


def _other_digest(entry: bytes) -> bytes:
    at = entry.index(b'"sha256":"') + len(b'"sha256":"')
    return entry[:at] + (b"1" if entry[at : at + 1] == b"0" else b"0") + entry[at + 1 :]


def _corrupt_entries(key: str, good: bytes) -> dict[str, bytes]:
    nan = b"[NaN]"
    huge = b"[1e999]"
    return {
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "wrong key": good.replace(key.encode(), ("0" * 64).encode(), 1),
        "wrong hash": _other_digest(good),
        "payload changed": good.replace(b"SELECT 1", b"SELECT 2"),
        "NaN": encode_entry(key, nan),
        "overflowing float": encode_entry(key, huge),
        "not JSON": encode_entry(key, b"{models: [}"),
        "garbage": os.urandom(200),
    }


@pytest.mark.parametrize("damage", list(_corrupt_entries("k" * 64, encode_entry("k" * 64, b"1"))))
def test_a_corrupt_entry_is_ignored_and_rewritten(cache_dir: Path, tmp_path: Path, damage: str) -> None:
    path = write(tmp_path / "p" / "models.yml", "models:\n  - {name: a, sql: 'SELECT 1'}\n")
    expected = typed(yaml_io.load_yaml(path, "models.yml"))
    [entry] = entries(cache_dir)
    good = entry.read_bytes()
    entry.write_bytes(_corrupt_entries(entry.stem, good)[damage])
    assert typed(yaml_io.load_yaml(path, "models.yml")) == expected
    assert entry.read_bytes() == good


def test_a_directory_or_a_symlink_in_place_of_an_entry_is_ignored(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    expected = typed(yaml_io.load_yaml(path, "models.yml"))
    [entry] = entries(cache_dir)
    entry.unlink()
    entry.mkdir()
    assert typed(yaml_io.load_yaml(path, "models.yml")) == expected
    assert entry.is_dir() and not list(entry.parent.glob(".*.tmp"))  # the failed write left nothing behind
    entry.rmdir()
    decoy = write(tmp_path / "decoy.json", "not ours")
    entry.symlink_to(decoy)
    assert typed(yaml_io.load_yaml(path, "models.yml")) == expected
    assert decoy.read_text() == "not ours" and not entry.is_symlink()  # the link was replaced, not followed


def test_an_unusable_cache_location_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    blocker = write(tmp_path / "a-file", "")
    monkeypatch.setenv("STREAMT_CACHE_DIR", str(blocker / "cache"))  # under a regular file: ENOTDIR
    assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}
    assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}


def test_a_directory_others_may_write_is_not_used(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    (cache_dir / "parse-v1").mkdir(parents=True)
    (cache_dir / "parse-v1").chmod(0o777)
    assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}
    assert entries(cache_dir) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a directory to another user")
def test_a_directory_of_another_user_is_not_used(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    yaml_io.load_yaml(path, "models.yml")
    [entry] = entries(cache_dir)
    entry.write_bytes(encode_entry(entry.stem, b'{"models":[{"name":"planted"}]}'))
    os.chown(cache_dir / "parse-v1", 65534, 65534)
    yaml_io._parse_cache.cache_clear()  # the directory is vetted once per process
    assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_a_read_only_cache_directory_is_a_miss(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    (cache_dir / "parse-v1").mkdir(parents=True)
    (cache_dir / "parse-v1").chmod(0o500)
    try:
        assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}
    finally:
        (cache_dir / "parse-v1").chmod(0o700)
    assert entries(cache_dir) == []


@pytest.mark.parametrize(("value", "on"), [("1", False), ("yes", False), ("0", True), ("", True)])
def test_streamt_no_cache(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, on: bool
) -> None:
    monkeypatch.setenv("STREAMT_NO_CACHE", value)
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    assert yaml_io.load_yaml(path, "models.yml") == {"models": [{"name": "a"}]}
    assert bool(entries(cache_dir)) is on


def test_the_location() -> None:
    assert cache_root({"STREAMT_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/c")
    assert cache_root({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x/streamt")
    assert cache_root({"HOME": "/h"}) == Path("/h/.cache/streamt")
    assert cache_root({"STREAMT_CACHE_DIR": "", "XDG_CACHE_HOME": "", "HOME": "/h"}) == Path("/h/.cache/streamt")
    assert cache_root({"STREAMT_CACHE_DIR": "rel", "HOME": "/h"}) is None  # would land in the project
    assert cache_root({"XDG_CACHE_HOME": "rel", "HOME": "/h"}) is None
    assert cache_root({}) is None
    assert cache_root({"STREAMT_CACHE_DIR": "/c", "STREAMT_NO_CACHE": "1"}) is None


def test_the_test_session_never_uses_the_home_cache() -> None:
    location = cache_root(os.environ)
    assert location is not None and Path.home() not in location.parents


def test_pruning_keeps_the_newest_entries_of_a_shard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_cache, "MAX_ENTRIES", parse_cache.SHARDS * 2)
    shard = tmp_path / "ab"
    shard.mkdir()
    for age in range(5):
        entry = write(shard / f"{age}.json", "{}")
        os.utime(entry, (1_000_000 - age, 1_000_000 - age))  # 0.json is the newest
    write(shard / ".old.tmp", "")
    os.utime(shard / ".old.tmp", (1, 1))
    write(shard / ".fresh.tmp", "")
    parse_cache.prune_shard(shard, keep="4.json")
    assert sorted(p.name for p in shard.iterdir()) == [".fresh.tmp", "0.json", "1.json", "4.json"]


def test_pruning_by_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_cache, "MAX_BYTES", parse_cache.SHARDS * 250)
    shard = tmp_path / "ab"
    shard.mkdir()
    for age in range(4):
        entry = write(shard / f"{age}.json", "x" * 100)
        os.utime(entry, (1_000_000 - age, 1_000_000 - age))
    parse_cache.prune_shard(shard, keep="none")
    assert sorted(p.name for p in shard.iterdir()) == ["0.json", "1.json"]


# --- every command: the same bytes cold, warm and off; nothing written into the project ----------------

_PROJECTS = [
    *((EXAMPLES / name, ()) for name in ("kafka-streams", "minimal-topic", "ownership-gateway", "payments-pipeline")),
    (EXAMPLES / "multi-env", ("--env", "dev")),
    (EXAMPLES / "multi-env", ()),
    (REPO / "examples" / "quickstart", ()),
    (REPO / "examples" / "kafka-quickstart", ()),
]
_COMMANDS = [("validate",), ("compile", "--dry-run"), ("plan", "--offline")]


def _tree(root: Path) -> list[tuple[str, bytes]]:
    return [(p.relative_to(root).as_posix(), p.read_bytes() if p.is_file() else b"") for p in sorted(root.rglob("*"))]


def _cli(*argv: str | Path) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(["-o", "json", *map(str, argv)], stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize(("source", "extra"), _PROJECTS, ids=lambda p: p.name if isinstance(p, Path) else " ".join(p))
def test_outputs_are_the_same_bytes_cold_warm_and_off(
    source: Path, extra: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / source.name
    shutil.copytree(source, project)
    before = _tree(project)
    monkeypatch.chdir(tmp_path)
    for command in _COMMANDS:
        argv = (*command, "--project-dir", project, *extra)
        monkeypatch.setenv("STREAMT_CACHE_DIR", str(tmp_path / f"cache-{command[0]}"))
        monkeypatch.delenv("STREAMT_NO_CACHE", raising=False)
        cold = _cli(*argv)
        if source.name != "multi-env" or extra:  # without --env, multi-env stops before reading any YAML
            assert entries(tmp_path / f"cache-{command[0]}"), "the cold run stored nothing: this would prove nothing"
        warm = _cli(*argv)
        monkeypatch.setenv("STREAMT_NO_CACHE", "1")
        off = _cli(*argv)
        assert cold == warm == off
    assert _tree(project) == before
    assert {p.name for p in tmp_path.iterdir()} <= {source.name, *(f"cache-{c[0]}" for c in _COMMANDS)}


def test_the_hit_path_really_runs_in_the_command_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The byte comparison above means something only if warm runs skip parsing.
    monkeypatch.setenv("STREAMT_CACHE_DIR", str(tmp_path / "cache"))
    project = EXAMPLES / "payments-pipeline"
    cold = _cli("validate", "--project-dir", project)
    parsed: list[str] = []
    real = yaml_io._parse

    def counting(text: str, shown: str) -> Any:
        parsed.append(shown)
        return real(text, shown)

    monkeypatch.setattr(yaml_io, "_parse", counting)
    assert _cli("validate", "--project-dir", project) == cold
    assert parsed == []


def test_entries_hold_their_key_and_the_payload_digest(cache_dir: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "p" / "models.yml", "models: [{name: a}]\n")
    yaml_io.load_yaml(path, "models.yml")
    [entry] = entries(cache_dir)
    document = json.loads(entry.read_bytes())
    assert document["key"] == entry.stem and document["value"] == {"models": [{"name": "a"}]}
    payload = json.dumps(document["value"], separators=(",", ":")).encode()
    assert document["sha256"] == hashlib.sha256(payload).hexdigest()
    assert decode_entry("0" * 64, entry.read_bytes()) is MISS
    assert oct(entry.stat().st_mode & 0o777) == oct(0o600) and oct(
        (cache_dir / "parse-v1").stat().st_mode & 0o777
    ) == oct(0o700)


def test_no_literal_secret_reaches_the_cache(cache_dir: Path, tmp_path: Path) -> None:
    secret = "S3NT1NEL-parse-cache"
    project = tmp_path / "p"
    write(
        project / "stream_project.yml",
        "project: {name: leak}\n"
        "runtime:\n"
        f"  kafka: {{bootstrap_servers: 'k:9092', sasl_password: {secret}}}\n"
        f"  schema_registry: {{url: 'http://user:{secret}@registry:8081'}}\n",
    )
    write(project / "sources" / "a.yml", "sources:\n  - {name: a, topic: t}\n")
    write(project / "models" / "b.yml", "models:\n  - name: b\n    sql: 'SELECT * FROM {{ source(\"a\") }}'\n")
    write(project / "state.yml", f"state: {{dsn_env: 'postgresql://u:{secret}@h/d'}}\n")
    for _ in range(2):
        _cli("validate", "--project-dir", project)
    yaml_io.load_yaml(project / "state.yml", "state.yml")
    stored_files = entries(cache_dir)
    assert len(stored_files) == 2  # the source and the model files; not the two holding the secret
    assert all(secret.encode() not in p.read_bytes() for p in stored_files)


@pytest.mark.parametrize(
    ("source", "extra"),
    [p for p in _PROJECTS if p[0].name != "multi-env" or p[1]],
    ids=lambda p: getattr(p, "name", ""),
)
def test_literal_documents_load_the_same_project_as_interpolated_ones(
    source: Path, extra: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamt.project import loader

    monkeypatch.setenv("STREAMT_NO_CACHE", "1")
    env = extra[1] if extra else None
    skipping = loader.load_project(source, env)
    literal: list[bool] = []
    real = loader.read_yaml

    def never_literal(path: Path, shown: str) -> yaml_io.Parsed:
        parsed = real(path, shown)
        literal.append(parsed.literal)
        return parsed._replace(literal=False)

    monkeypatch.setattr(loader, "read_yaml", never_literal)
    assert loader.load_project(source, env) == skipping
    # Every file of these holds a ${VAR}, a backslash or an anchor somewhere: none of them is literal.
    if source.name not in ("minimal-topic", "ownership-gateway", "kafka-quickstart"):
        assert any(literal), "no literal document: this would prove nothing"


@pytest.mark.parametrize(
    ("text", "vetted"),
    [
        ("models:\n  - name: a\n    sql: 'SELECT 1'\n    topic: {partitions: 3}\n", True),
        ("password: x\n", False),
        ("dsn_env: X\n", False),  # not a secret name, but the text check stays coarse
        ("url: 'http://u:p@h/x'\n", False),
        ("API_\u212aEY: x\n", False),  # the Kelvin sign lowers to 'k'
        ("note: the token is elsewhere\n", False),
    ],
)
def test_vetted_by_text(text: str, vetted: bool) -> None:
    assert parse_cache.vetted_by_text(text) is vetted


_vetting_text = st.text(alphabet=st.sampled_from("apiKkeytoknsecrdw_:/@?=& -.1\u212a\u0130\u03a3'\"\n"), max_size=14)
_vetting_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _vetting_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_vetting_text, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_vetting_text, _vetting_values, max_size=4), st.sampled_from([None, "'", '"']))
def test_a_vetted_literal_document_is_encoded_as_after_the_walk(document: dict[str, Any], style: str | None) -> None:
    # What lets the loader skip the cacheable() walk before storing a literal document.
    text = yaml.safe_dump(document, allow_unicode=True, default_style=style, width=12)
    try:
        parsed, _plain = yaml_io._parse(text, "x.yml")
    except StreamtError:
        return
    if parsed.literal and parse_cache.vetted_by_text(text):
        # The same payload (or none: a non-finite float) as after the cacheable() walk.
        assert encode_value(parsed.document, vetted=True) == encode_value(parsed.document)
