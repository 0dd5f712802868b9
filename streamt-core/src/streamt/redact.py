"""Secret-free copies of settings, for anything that is hashed and then shown or stored.

A digest of a secret is not a secret-free value: a plan file that stores
``sha256(settings)`` lets anyone who reads it guess a weak password offline, one
hash per guess. So a fingerprint is computed over settings with every secret
removed first: fields whose name says they hold one and, in every URL, what a credential can
hide in: the userinfo (up to the *last* ``@`` of the authority, where clients end it:
``http://u:p@SECRET@host`` is ``http://host``), the whole query (``?sig=...``) and fragment, and
path segments that look like tokens (long runs of letters and digits, or the segment after one
named like a secret: ``/token/<t>``), which become ``*``.
"""

from __future__ import annotations

import re
from typing import Any

SECRET_WORDS = ("password", "secret", "api_key", "apikey", "token", "dsn", "credential", "private_key", "jaas")
# A URL runs to the next whitespace; its authority ends at the first '/', '?' or '#'.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s]*")
_AUTHORITY_END = re.compile(r"[/?#]")
# A path segment that looks like a credential: 16 or more token characters, with letters and digits.
_TOKEN = re.compile(r"(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[A-Za-z0-9_.~%+=-]{16,}")


def is_secret_name(name: str) -> bool:
    """``sasl_password``, ``api_secret``, ``dsn_env``? Names of variables (``*_env``) are not secrets."""
    lowered = name.lower()
    return not lowered.endswith("_env") and any(word in lowered for word in SECRET_WORDS)


def without_secrets(value: Any) -> Any:
    """``value`` (plain JSON-like data) with secret-named keys dropped and URL credentials removed."""
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items() if not is_secret_name(str(k))}
    if isinstance(value, (list, tuple)):
        return [without_secrets(v) for v in value]
    if isinstance(value, str):
        return strip_url_secrets(value)
    return value


def strip_url_secrets(text: str) -> str:
    """``http://user:pw@host/x/<token>?sig=s#f`` -> ``http://host/x/*``; text without a URL is unchanged."""
    if "://" not in text:
        return text
    return _URL.sub(_without_url_secrets, text)


def _without_url_secrets(match: re.Match[str]) -> str:
    scheme, _, rest = match.group(0).partition("://")
    end = _AUTHORITY_END.search(rest)
    authority, tail = (rest[: end.start()], rest[end.start() :]) if end else (rest, "")
    path = tail.split("?", 1)[0].split("#", 1)[0]
    segments = path.split("/")
    kept = [
        "*" if _TOKEN.fullmatch(segment) or (i > 0 and is_secret_name(segments[i - 1])) else segment
        for i, segment in enumerate(segments)
    ]
    return f"{scheme}://{authority.rpartition('@')[2]}{'/'.join(kept)}"
