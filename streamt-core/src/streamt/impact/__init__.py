"""Declared Git impact: compare the project at two Git refs and explain the downstream effect.

One module per step:

* ``gitread`` — the safe Git reader (resolve a ref, read the project's files at it; runs nothing
  from the repository); ``files`` — which files are project files, and the bounds, for both a ref
  and the working tree.
* ``snapshot`` — those files loaded, validated and compiled like the working tree, offline.
* ``compare`` (+ ``changes``, ``widening``, ``consumers``, ``workflows``) — per-resource changes,
  each classified breaking / operational / non-breaking.
* ``downstream`` — the closure over lineage, custom applications (exposures) included, with why.
* ``report`` — the versioned JSON shape; ``render`` — text and the Markdown pull-request comment.
"""
