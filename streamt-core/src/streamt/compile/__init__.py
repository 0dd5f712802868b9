"""Compiling a project into artifacts, and writing them out.

Public API:

* ``compile_project(project, plugins=None) -> CompiledProject`` — the walk
  over every declaration through the ``streamt_compile`` hooks.
* ``load_and_compile(project_dir, env) -> Loaded`` — load, validate, compile;
  what commands and exporters call; ``validate_and_compile(project)`` for a
  project already loaded.
* ``render(compiled) -> (files, manifest)`` — every output file as bytes.
* ``manifest_checksum(manifest)`` — the digest reviewed plans bind to;
  ``checksummed_manifest(compiled)`` gives the manifest and it, encoding each spec once.
* ``manifest(compiled)`` — the manifest alone, every path decided, no file rendered.
* ``write_compiled(target, compiled, checksums, project_root)`` — atomic directory
  output rendered one artifact at a time; ``output_paths`` lists it without writing;
  ``probe_output(target)`` reads the previous output's manifest early (memory).
* ``write_output(target, files, project_root)`` / ``checksum_file(files)`` —
  atomic output of given bytes and the ``sha256sum -c`` file of ``build``.
* ``compiled_view(project, model_name)`` — the compiled block of ``show model``.
"""

from streamt.compile.engine import CompiledProject, compile_project
from streamt.compile.layout import MANIFEST, checksummed_manifest, manifest, manifest_checksum, render
from streamt.compile.loading import Loaded, load_and_compile, validate_and_compile
from streamt.compile.output import (
    CHECKSUMS,
    OutputProbe,
    checksum_file,
    output_paths,
    probe_output,
    write_compiled,
    write_output,
)
from streamt.compile.view import compiled_view

__all__ = [
    "CHECKSUMS",
    "MANIFEST",
    "CompiledProject",
    "Loaded",
    "OutputProbe",
    "checksum_file",
    "checksummed_manifest",
    "compile_project",
    "compiled_view",
    "load_and_compile",
    "manifest",
    "manifest_checksum",
    "output_paths",
    "probe_output",
    "render",
    "validate_and_compile",
    "write_compiled",
    "write_output",
]
