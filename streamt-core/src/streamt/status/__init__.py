"""``streamt status``: live status of the selected resources.

* ``report.status_report`` — filter (before any connection), observe through
  the same observers as ``plan``, classify each resource;
* ``render`` — the text and JSON shapes of the CLI reference.
"""
