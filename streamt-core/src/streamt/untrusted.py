"""Making what a plugin supplies safe to show.

A plugin chooses its entry-point name, its distribution name, the names of
the kinds and commands it claims and the classes of the exceptions it raises.
None of that may carry a secret or a terminal escape into a diagnostic, a log
line or a JSON envelope:

* an exception is shown by the nearest *built-in* class it derives from: a
  plugin's own class name (``class ghp_1234(RuntimeError)``) is text the
  plugin wrote, the built-in base is not;
* an identifier keeps the characters names are made of, each other character
  becomes ``?``, and it is cut at a length no real name reaches.
"""

from __future__ import annotations

import builtins

MAX_IDENTIFIER = 80
# A set, not a pattern: every start checks each plugin's names, and compiling a pattern costs more.
_LOWER = "abcdefghijklmnopqrstuvwxyz"
NAME_CHARACTERS = frozenset(_LOWER + _LOWER.upper() + "0123456789._:/@+- ")


def exception_name(exc: BaseException) -> str:
    """``RuntimeError`` for any subclass of it a plugin defines: the first built-in class of the MRO."""
    for cls in type(exc).__mro__:
        # Compared by identity: a plugin class may set ``__module__ = "builtins"`` on itself.
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return "Exception"  # unreachable: every exception derives from BaseException


def identifier(text: object) -> str:
    """``text`` as a name that is safe in any output: name characters only, bounded length."""
    shown = str(text)
    if len(shown) <= MAX_IDENTIFIER and NAME_CHARACTERS.issuperset(shown):  # every real name: no copy
        return shown
    shown = "".join(c if c in NAME_CHARACTERS else "?" for c in shown)
    return shown if len(shown) <= MAX_IDENTIFIER else shown[: MAX_IDENTIFIER - 3] + "..."
