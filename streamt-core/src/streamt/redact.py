"""Secret-free copies of settings, for anything that is hashed and then shown or stored.

A digest of a secret is not a secret-free value: a plan file that stores
``sha256(settings)`` lets anyone who reads it guess a weak password offline, one
hash per guess. So a fingerprint is computed over settings with every secret
removed first: fields whose name says they hold one, credentials inside URLs
(``http://user:PW@host``) and secret-named URL query parameters
(``?password=...``).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode

SECRET_WORDS = ("password", "secret", "api_key", "apikey", "token", "dsn", "credential", "private_key", "jaas")
# scheme://userinfo@ ; userinfo ends at the first '@' before any '/', '?' or '#'.
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]*@")
_QUERY = re.compile(r"\?(?P<query>[^#\s]*)")


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
    """``http://user:pw@host/x?password=p&a=1`` -> ``http://host/x?a=1``; other text is unchanged."""
    if "://" not in text:
        return text
    text = _USERINFO.sub(lambda m: m.group("scheme"), text)
    return _QUERY.sub(_strip_query, text)


def _strip_query(match: re.Match[str]) -> str:
    pairs = parse_qsl(match.group("query"), keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not is_secret_name(k)]
    if len(kept) == len(pairs):
        return match.group(0)
    return "?" + urlencode(kept) if kept else ""
