"""The core side of ``streamt import`` and ``init --discover``.

* ``model`` — what a discoverer plugin reports (topics, schema lookups);
* ``select`` — internal topics, include/exclude globs, already-declared topics;
* ``declarations`` — source names, generated YAML and per-resource provenance;
* ``target`` — the output path rule (``E704``), staged validation (``E705``)
  and exclusive creation (``E702``/``E706``);
* ``run`` — one discovery from a project's runtime through the hook.
"""
