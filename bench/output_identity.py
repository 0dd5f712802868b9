"""Snapshot every offline output streamt produces, to prove a refactor changed no byte.

For each project of the early streamt's compatibility corpus, the spec examples, the repository's
examples and (with ``--tree N``) a synthetic N-model bench tree, this runs the offline commands in
this process and writes what each printed, and the files compile and docs generate wrote, under
OUT/<project>/. Run it before and after a change and compare the two directories:

    ./dev bench output_identity /tmp/before            # on the old commit
    ./dev bench output_identity /tmp/after              # on the new one
    diff -r /tmp/before /tmp/after && echo identical

Paths of the temporary output directories are replaced by a fixed token, so two runs compare equal
when streamt's outputs do.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from streamt.cli import run
from validate_bench import generate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "infra"))
from shared_material import SHARED  # noqa: E402  (the corpus's one locator: STREAMT_SHARED_DIR or beside the repo)

# Offline commands whose stdout (and exit code) is part of the snapshot; {out} is a scratch directory.
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("-o", "json", "validate"),
    ("-o", "json", "compile", "--output-dir", "{out}/generated"),
    ("-o", "json", "list", "sources"),
    ("-o", "json", "list", "models"),
    ("-o", "json", "list", "tests"),
    ("-o", "json", "list", "exposures"),
    ("-o", "json", "lineage"),
    ("-o", "json", "plan", "--offline"),
    ("plan", "--offline"),
    ("-o", "json", "docs", "generate", "--quiet", "--output", "{out}/site"),
    ("-o", "json", "export", "strimzi"),
)
TREE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("-o", "json", "compile", "--output-dir", "{out}/generated"),
    ("-o", "json", "plan", "--offline"),
)


def projects() -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    corpus = SHARED / "compat" / "upstream-projects"
    for group, base in (("compat", corpus), ("spec", SHARED / "spec" / "examples"), ("repo", ROOT / "examples")):
        if not base.is_dir():
            raise SystemExit(f"{base} is missing: set STREAMT_SHARED_DIR to the shared material")
        for path in sorted(base.iterdir()):
            if (path / "stream_project.yml").is_file():
                found.append((f"{group}-{path.name}", path))
    return found


def snapshot(name: str, source: Path, out: Path, commands: tuple[tuple[str, ...], ...], show: bool = True) -> None:
    target = out / name
    target.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "project"
        shutil.copytree(source, project, ignore=shutil.ignore_patterns("generated", "site", ".streamt"))
        work = Path(scratch) / "out"
        work.mkdir()
        for index, command in enumerate(commands):
            argv = [part.replace("{out}", str(work)) for part in command]
            argv.append(f"--project-dir={project}")
            stdout, stderr = io.StringIO(), io.StringIO()
            code = run(argv, stdout=stdout, stderr=stderr)
            text = stdout.getvalue().replace(str(work), "<OUT>").replace(str(project), "<PROJECT>")
            label = "_".join(part for part in command if not part.startswith("{")).replace("/", "_")
            (target / f"{index:02d}-{label}.txt").write_text(f"exit {code}\n{text}")
        # `show` loads the project once per resource: the corpus, not the bench tree.
        for kind, names in (_declared(project) if show else {}).items():
            for declared in names:
                stdout, stderr = io.StringIO(), io.StringIO()
                code = run(["-o", "json", "show", kind, declared, f"--project-dir={project}"], stdout, stderr)
                text = stdout.getvalue().replace(str(project), "<PROJECT>")
                (target / f"show-{kind}-{declared}.txt").write_text(f"exit {code}\n{text}")
        for produced in ("generated", "site"):
            if (work / produced).is_dir():
                shutil.copytree(work / produced, target / produced)


def _declared(project: Path) -> dict[str, list[str]]:
    """The names `list` reports per kind (none when the project does not load)."""
    names: dict[str, list[str]] = {}
    for kind in ("source", "model", "test", "exposure"):
        stdout = io.StringIO()
        if run(["-o", "json", "list", f"{kind}s", f"--project-dir={project}"], stdout, io.StringIO()) == 0:
            data = json.loads(stdout.getvalue())["data"]
            rows = next((value for value in data.values() if isinstance(value, list)), [])
            names[kind] = sorted(str(row["name"]) for row in rows if isinstance(row, dict) and "name" in row)
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tree", type=int, default=0, help="also snapshot an N-model bench tree")
    parser.add_argument("--only", default="", help="only projects whose name contains this")
    args = parser.parse_args()
    if args.out.exists():
        print(f"{args.out} exists; give a new directory", file=sys.stderr)
        return 2
    os.environ.setdefault("STREAMT_LOG_FORMAT", "keyvalue")
    count = 0
    for name, path in projects():
        if args.only in name:
            snapshot(name, path, args.out, COMMANDS)
            count += 1
    if args.tree:
        with tempfile.TemporaryDirectory() as scratch:
            tree = Path(scratch) / "tree"
            generate(tree, args.tree)
            snapshot(f"tree-{args.tree}", tree, args.out, TREE_COMMANDS, show=False)
            count += 1
    print(f"{count} projects snapshotted under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
