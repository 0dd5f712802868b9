"""``streamt docs generate``: a static, self-contained HTML site of a project.

Public API:

* ``site_files(project, artifacts, contributions) -> dict[path, bytes]`` — every file of the site,
  deterministic bytes (same project, same bytes), no network needed to view it.
* ``write_site(target, files)`` — replace ``target`` with exactly those files, atomically.
* ``DocsPage`` / ``DocsSection`` / ``DocsNodeDetail`` — what plugins return from ``streamt_docs_site``.
"""

from streamt.docs_site.extensions import DocsNodeDetail, DocsPage, DocsSection
from streamt.docs_site.site import site_files
from streamt.docs_site.write import MARKER, write_site

__all__ = ["MARKER", "DocsNodeDetail", "DocsPage", "DocsSection", "site_files", "write_site"]
