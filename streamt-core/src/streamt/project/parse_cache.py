"""A content-addressed cache of parsed YAML documents, kept outside the project.

Composing YAML with libyaml is most of what ``validate`` spends on a large project, and most files
do not change between runs. An entry maps the sha256 of (this cache's format, the streamt-core
version, the parser's identity, the file's raw bytes) to the parsed document, stored as JSON.
Nothing depends on mtimes: a file whose bytes changed has another key.

Why it is safe:

- Only what the parser built on its plain path is stored, and only when it is plain JSON data
  (maps with string keys, lists, strings, integers, finite floats, booleans, null; no anchors) and
  holds no literal secret (no secret-named key with a value other than a ``${VAR}`` reference, no
  credentials in a URL). Everything else is parsed every time, as without a cache.
- Interpolation, ``.env`` and validation run after loading and are never cached, so variable
  values never reach an entry.
- Entries are untrusted input: they are JSON (never pickle), carry their key and the sha256 of
  their payload, and ``NaN``/``Infinity``/overflowing floats are refused when read. A torn,
  corrupt or foreign entry is a miss and is rewritten. The directory must belong to this user and
  not be writable by others, otherwise the cache is off.
- Any OS error (read-only home, full disk, permissions) is a miss; nothing is printed.

Location: ``$STREAMT_CACHE_DIR``, else ``$XDG_CACHE_HOME/streamt``, else ``~/.cache/streamt``
(absolute paths only), entries in ``parse-v1/<2 hex>/<key>.json``. ``STREAMT_NO_CACHE`` set to
anything but ``""``/``0`` turns reads and writes off. Size: each of the 256 shards keeps at most
1/256 of ``MAX_ENTRIES`` and ``MAX_BYTES``, newest written first; a shard is pruned the first time a
process writes into it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from streamt import __version__
from streamt.redact import SECRET_WORDS, is_secret_name, strip_url_secrets

# Part of every key and of the directory name: bump it when the entry layout or the rule of what may
# be stored changes (the loader's own changes are covered by its source digest in the parser identity).
FORMAT: Final = 1
MAX_ENTRIES: Final = 20_000
MAX_BYTES: Final = 512 * 1024 * 1024
SHARDS: Final = 256
# Larger than any entry of a file the loader accepts (20 MB of YAML as ASCII-escaped JSON).
MAX_ENTRY_BYTES: Final = 128 * 1024 * 1024
# A temporary file this old was left by a process that died between write and rename.
STALE_TEMP_SECONDS: Final = 3600

MISS: Final = object()

_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_DIGEST_LENGTH = 64
_VALUE_MARK = b'","value":'
_END = b"}\n"


def cache_root(environ: Mapping[str, str]) -> Path | None:
    """Where entries live for this environment, or ``None`` when the cache is off."""
    if environ.get("STREAMT_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = environ.get("STREAMT_CACHE_DIR", "")
    if explicit:
        root = Path(explicit)
    elif environ.get("XDG_CACHE_HOME", ""):
        root = Path(environ["XDG_CACHE_HOME"]) / "streamt"
    else:
        home = environ.get("HOME", "")
        if not home:
            return None
        root = Path(home) / ".cache" / "streamt"
    # A relative path would put the cache under the working directory, i.e. usually the project.
    return root if root.is_absolute() else None


class ParseCache:
    """Entries of one parser (``parser`` names it: library versions and the loader's own source digest)."""

    def __init__(self, root: Path, parser: str) -> None:
        self.entries = root / f"parse-v{FORMAT}"
        self._salt = f"streamt-parse-cache {FORMAT}\0streamt-core {__version__}\0{parser}\0".encode()
        self._trusted: bool | None = None
        self._pruned: set[str] = set()

    def key(self, data: bytes) -> str:
        digest = hashlib.sha256(self._salt)
        digest.update(data)
        return digest.hexdigest()

    def get(self, key: str) -> Any:
        """The document stored under ``key``, or ``MISS``."""
        if not self._directory_trusted(create=False):
            return MISS
        path = self._path(key)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return MISS
        except OSError as exc:
            _debug("parse_cache_unreadable", error=type(exc).__name__)
            return MISS
        try:
            with os.fdopen(fd, "rb") as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
        except OSError as exc:
            _debug("parse_cache_unreadable", error=type(exc).__name__)
            return MISS
        value = decode_entry(key, raw)
        if value is MISS:
            _debug("parse_cache_corrupt_entry", key=key)
        return value

    def put(self, key: str, value: Any, vetted: bool = False) -> None:
        """Store ``value`` if it may be cached; failures only mean the next run parses again.

        ``vetted``: the caller knows ``cacheable(value)`` holds (see ``vetted_by_text``).
        """
        payload = encode_value(value, vetted)
        if payload is None:
            return
        entry = encode_entry(key, payload)
        if len(entry) > MAX_ENTRY_BYTES or not self._directory_trusted(create=True):
            return
        path = self._path(key)
        temp = path.with_name(f".{key}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(entry)
            # No fsync: a torn entry fails its checksum and is rewritten.
            os.replace(temp, path)
        except OSError as exc:
            _debug("parse_cache_write_failed", error=type(exc).__name__)
            _remove(temp)
            return
        if path.parent.name not in self._pruned:
            self._pruned.add(path.parent.name)
            prune_shard(path.parent, keep=path.name)

    def _path(self, key: str) -> Path:
        return self.entries / key[:2] / f"{key}.json"

    def _directory_trusted(self, create: bool) -> bool:
        """The entry directory is ours alone (checked once per process); ``create`` makes it if missing."""
        if self._trusted is not None:
            return self._trusted
        try:
            info = os.stat(self.entries)
        except FileNotFoundError:
            if not create:
                return False
            try:
                self.entries.mkdir(mode=0o700, parents=True, exist_ok=True)
                info = os.stat(self.entries)
            except OSError as exc:
                _debug("parse_cache_unavailable", error=type(exc).__name__)
                self._trusted = False
                return False
        except OSError as exc:
            _debug("parse_cache_unavailable", error=type(exc).__name__)
            self._trusted = False
            return False
        owned = info.st_uid == os.geteuid()
        self._trusted = stat.S_ISDIR(info.st_mode) and owned and not info.st_mode & 0o022
        if not self._trusted:
            _debug("parse_cache_untrusted_directory")
        return self._trusted


def encode_value(value: Any, vetted: bool = False) -> bytes | None:
    """The JSON payload of a document that may be stored (ASCII, compact); ``None`` when it may not."""
    if not vetted and not cacheable(value):
        return None
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")
    except (ValueError, TypeError, RecursionError):  # e.g. an int beyond Python's digit limit
        return None


def encode_entry(key: str, payload: bytes) -> bytes:
    """``{"key": ..., "sha256": <of payload>, "value": <payload>}``: one JSON document, read by offsets."""
    digest = hashlib.sha256(payload).hexdigest()
    return b'{"key":"%s","sha256":"%s%s%s%s' % (key.encode(), digest.encode(), _VALUE_MARK, payload, _END)


def decode_entry(key: str, raw: bytes) -> Any:
    """The value of an entry written by ``encode_entry`` for ``key``; ``MISS`` for anything else."""
    prefix = b'{"key":"%s","sha256":"' % key.encode()
    start = len(prefix) + _DIGEST_LENGTH + len(_VALUE_MARK)
    if (
        len(raw) > MAX_ENTRY_BYTES
        or not raw.startswith(prefix)
        or raw[start - len(_VALUE_MARK) : start] != _VALUE_MARK
        or not raw.endswith(_END)
        or len(raw) < start + len(_END)
    ):
        return MISS
    payload = raw[start : -len(_END)]
    if hashlib.sha256(payload).hexdigest().encode() != raw[len(prefix) : len(prefix) + _DIGEST_LENGTH]:
        return MISS
    try:
        return json.loads(payload, parse_constant=_refuse_constant, parse_float=_finite_float)
    except (ValueError, RecursionError):
        return MISS


def cacheable(value: Any) -> bool:
    """Plain JSON data that round-trips exactly and holds no literal secret.

    Runs once per stored document over every node, so leaves are checked inline and key verdicts
    are remembered (keys repeat in every model).
    """
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            rule = _key_rule(key) if type(key) is str else _REFUSE
            if rule is _REFUSE:
                return False
            if rule is _SECRET and not (item is None or (type(item) is str and _PLACEHOLDER.fullmatch(item))):
                return False
            leaf = type(item)
            if leaf is str:
                if "://" in item and strip_url_secrets(item) != item:
                    return False
            elif not (leaf is int or leaf is bool or item is None or cacheable(item)):
                return False
        return True
    if kind is list:
        return all(cacheable(item) for item in value)
    if kind is str:
        return "://" not in value or strip_url_secrets(value) == value
    if kind is float:
        return math.isfinite(value)
    return kind is int or kind is bool or value is None


def vetted_by_text(text: str) -> bool:
    """Whether ``cacheable`` holds for any literal document parsed from ``text`` (``yaml_io.Parsed``).

    Such a document is maps with text keys, lists and scalars, and its keys and texts are the
    file's own characters: without a backslash there is no escape, and folding lines only adds
    spaces. So a secret-named key needs a secret word in the lowered text, and a URL needs its
    ``://`` there; a text with neither passes every check. (A non-finite float is still refused
    when encoding.)
    """
    if "://" in text:
        return False
    lowered = text.lower()
    return not any(word in lowered for word in SECRET_WORDS)


_PLAIN_KEY, _SECRET, _REFUSE = "plain", "secret", "refuse"


@lru_cache(maxsize=4096)
def _key_rule(key: str) -> str:
    if not cacheable(key):
        return _REFUSE
    return _SECRET if is_secret_name(key) else _PLAIN_KEY


def prune_shard(shard: Path, keep: str) -> None:
    """Drop the oldest-written entries of ``shard`` beyond its share of the limits, and dead temp files."""
    try:
        with os.scandir(shard) as listing:
            found = [(entry.name, entry.stat(follow_symlinks=False)) for entry in listing]
    except OSError as exc:
        _debug("parse_cache_prune_failed", error=type(exc).__name__)
        return
    entries = sorted(
        ((info.st_mtime, info.st_size, name) for name, info in found if name.endswith(".json")), reverse=True
    )
    stale = time.time() - STALE_TEMP_SECONDS
    for name, info in found:
        if name.endswith(".tmp") and info.st_mtime < stale:
            _remove(shard / name)
    size = 0
    for count, (_mtime, entry_size, name) in enumerate(entries, start=1):
        size += entry_size
        if name != keep and (count > MAX_ENTRIES // SHARDS or size > MAX_BYTES // SHARDS):
            _remove(shard / name)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a cacheable value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("float out of range")
    return value


def _debug(event: str, **fields: Any) -> None:
    # Imported here, as the CLI's internal-error log does: ``logging`` alone costs a run that never
    # logs ~6 ms, and only a failing cache logs.
    from streamt.log import get_logger

    get_logger("streamt.parse_cache").debug(event, **fields)
