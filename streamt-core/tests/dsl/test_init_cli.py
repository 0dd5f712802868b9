"""``streamt init``: the scaffold validates cleanly, existing files are protected, discovery fails closed."""

from __future__ import annotations

from pathlib import Path

import pytest

SCHEMAS = [".schema/project.schema.json", ".schema/environment.schema.json", ".schema/declarations.schema.json"]
SCAFFOLD = ["stream_project.yml", "sources/events.yml", "models/events.yml", *SCHEMAS, ".gitignore"]


@pytest.mark.parametrize("mode", ["json", "text"])
def test_scaffold_validates_strictly(tmp_path: Path, mode: str, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STREAMT_ENV", raising=False)
    target = tmp_path / "payments"
    run = cli(mode, "init", "--project-dir", target)
    assert run.exit_code == 0
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()) == sorted(SCAFFOLD)
    if mode == "json":
        assert run.envelope["data"] == {
            "project": "payments",
            "directory": str(target),
            "files": SCAFFOLD,
            "dry_run": False,
        }
    else:
        assert run.stdout.splitlines()[0] == f"Created project 'payments' in {target}"
    validated = cli("json", "validate", "--strict", "-p", target)
    assert validated.exit_code == 0, validated.stdout
    assert validated.envelope["data"]["project"] == "payments" and validated.envelope["data"]["models"] == 1


def test_project_name_option(tmp_path: Path, cli) -> None:
    assert cli("json", "init", "--project-dir", tmp_path / "d", "--project-name", "orders").exit_code == 0
    assert cli("json", "validate", "-p", tmp_path / "d").envelope["data"]["project"] == "orders"


def test_the_gitignore_keeps_local_state_and_output_out_of_git(tmp_path: Path, cli) -> None:
    assert cli("json", "init", "--project-dir", tmp_path / "d").exit_code == 0
    assert (tmp_path / "d" / ".gitignore").read_text().splitlines() == [
        ".streamt/",
        "generated/",
        "build/",
        "site/",
        ".env*",
    ]
    # A repository's own .gitignore is neither replaced nor a conflict.
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / ".gitignore").write_text("mine\n")
    run = cli("json", "init", "--project-dir", tmp_path / "e")
    assert run.exit_code == 0 and ".gitignore" not in run.envelope["data"]["files"]
    assert (tmp_path / "e" / ".gitignore").read_text() == "mine\n"


@pytest.mark.parametrize(
    ("directory", "name"), [("My Project", "my-project"), ("CamelCase", "CamelCase"), ("!!", "my-project")]
)
def test_a_directory_name_becomes_a_valid_project_name(tmp_path: Path, cli, directory: str, name: str) -> None:
    run = cli("json", "init", "--project-dir", tmp_path / directory)
    assert run.exit_code == 0 and run.envelope["data"]["project"] == name, run.envelope
    assert cli("json", "validate", "--strict", "-p", tmp_path / directory).exit_code == 0


def test_invalid_project_name(tmp_path: Path, cli) -> None:
    run = cli("json", "init", "--project-dir", tmp_path / "d", "--project-name", "bad name!")
    assert run.envelope["errors"][0]["code"] == "E900_USAGE_ERROR"
    assert not (tmp_path / "d").exists()


def test_refuses_to_overwrite_without_force(tmp_path: Path, cli) -> None:
    assert cli("json", "init", "--project-dir", tmp_path).exit_code == 0
    (tmp_path / "stream_project.yml").write_text("# mine\n")
    run = cli("json", "init", "--project-dir", tmp_path)
    assert run.exit_code == 1
    error = run.envelope["errors"][0]
    assert error["code"] == "E905_OUTPUT_WRITE_FAILED" and "stream_project.yml" in error["message"]
    assert "--force" in error["suggestion"]
    assert (tmp_path / "stream_project.yml").read_text() == "# mine\n"  # untouched
    text = cli("text", "init", "--project-dir", tmp_path)
    assert text.exit_code == 1 and "E905_OUTPUT_WRITE_FAILED" in text.stderr
    forced = cli("json", "init", "--project-dir", tmp_path, "--force")
    assert forced.exit_code == 0 and "apiVersion" in (tmp_path / "stream_project.yml").read_text()


def test_dry_run_writes_nothing(tmp_path: Path, cli) -> None:
    run = cli("text", "init", "--project-dir", tmp_path / "d", "--dry-run")
    assert run.exit_code == 0 and run.stdout.startswith("Would create project 'd'")
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    ("args", "code"),
    [(("--discover",), "E900_USAGE_ERROR"), (("--discover", "--kafka", "127.0.0.1:9"), "E701_IMPORT_DISCOVERY_FAILED")],
)
def test_discover_without_reachable_kafka_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], code: str, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens on port 9: the refusal is immediate, so no attempt needs the default 8 s of retries.
    monkeypatch.setenv("STREAMT_KAFKA_CONNECT_TIMEOUT", "0.3")
    run = cli("json", "init", "--project-dir", tmp_path / "d", *args)
    assert run.exit_code == 1
    assert [e["code"] for e in run.envelope["errors"]] == [code]
    assert run.envelope["errors"][0]["suggestion"]
    assert not (tmp_path / "d").exists()
    text = cli("text", "init", "--project-dir", tmp_path / "d", *args)
    assert text.exit_code == 1 and code in text.stderr and "Traceback" not in text.text
