"""OpenLineage RunEvents for one finite command (``apply`` / ``test`` ``--emit-openlineage``).

Strictly opt-in. ``options`` resolves and validates the namespaces, ``transport`` builds the
File or synchronous HTTP transport named by ``OPENLINEAGE_CONFIG``, and ``run.CommandRun``
emits START and exactly one terminal event (COMPLETE, FAIL or ABORT). Every preflight problem
is ``E506_OPENLINEAGE_INVALID`` before the command does anything; every delivery or close problem
after START is only a ``W112_OPENLINEAGE_EMIT_FAILED`` warning. The ``openlineage-python`` client
(installed with ``streamt[openlineage]``) supplies transports and event models; it is imported
only when emission is requested.
"""
