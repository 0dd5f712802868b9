"""streamt: declare, validate, compile, plan and apply streaming pipelines.

Plugin authors need two names from here: ``hookimpl`` to mark hook
implementations, and the hook contract in ``streamt.hookspecs``.
"""

import pluggy

__version__ = "0.1.0"

hookimpl = pluggy.HookimplMarker("streamt")

__all__ = ["__version__", "hookimpl"]
