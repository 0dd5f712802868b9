"""streamt-impact: declared Git impact (``streamt impact``), the project at two Git refs compared and the
downstream effect explained (``plugin`` registers the command and its error code).

One module per step:

* ``gitread`` — the safe Git reader (resolve a ref, read the project's files at it; runs nothing
  from the repository); ``files`` — which files are project files, and the bounds, for both a ref
  and the working tree.
* ``snapshot`` — those files loaded, validated and compiled like the working tree, offline.
* ``compare`` (+ ``changes``, ``widening``, ``consumers``, ``workflows``) — per-resource changes,
  each classified breaking / operational / non-breaking.
* ``downstream`` — the closure over lineage, custom applications (exposures) included, with why.
* ``report`` — the versioned JSON shape; ``render`` — text and the Markdown pull-request comment.
* ``command`` — ``streamt impact`` itself: the two sides read, compared and rendered in one ``Result``.
"""
