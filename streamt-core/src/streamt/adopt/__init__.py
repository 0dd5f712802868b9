"""``streamt adopt``: claim one existing declared topic or subject, changing only ownership state.

* ``target`` — the compiled artifact behind ``--kind``/``--name`` (``E412``)
  and the exact confirmation (``E414``), checked before any provider access;
* ``claim`` — under the state lock: conflicts (``E415``), live review
  (``E413``), confirmation, and one atomic ownership-state commit (``E416``).
"""
