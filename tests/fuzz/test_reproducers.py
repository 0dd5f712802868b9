"""Every reproducer of issue 12 as a test: the answer it must give, and the contract for every command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cases import CASES, FLINK_HEAD, HEAD, SOURCE, Case
from harness import SENTINEL, check_contract, run_in_process, run_subprocess
from streamt import hookimpl
from streamt.errors import StreamtError
from streamt_testing import write_project

# Commands whose answer on a small hostile project must also keep the contract.
EVERY_COMMAND = (
    ("validate",),
    ("compile", "--dry-run"),
    ("plan", "--offline"),
    ("lineage",),
    ("lineage", "--format", "json"),
    ("lineage", "--format", "mermaid"),
)
LARGE = {"lineage-chain-ascii", "lineage-chain-mermaid", "many-unknown-keys-legacy", "many-unknown-keys-strict"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_reproducer_gets_its_answer(case: Case, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", case.files)
    envelope = check_contract(run_in_process([*case.command, "-p", str(root)], seconds=60), tmp_path)
    codes = [e["code"] for e in envelope["errors"]]
    if case.expect is None:
        assert envelope["status"] == "ok", envelope["errors"]
    else:
        assert case.expect in codes, envelope["errors"]
        located = [e for e in envelope["errors"] if e["code"] == case.expect]
        assert all(e["message"] for e in located)


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in LARGE], ids=lambda c: c.id)
def test_every_command_keeps_the_contract_on_the_reproducer(case: Case, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", case.files)
    for command in EVERY_COMMAND:
        check_contract(run_in_process([*command, "-p", str(root)], seconds=30), tmp_path)


def test_type_errors_name_the_path_and_the_expected_type(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD + "models: [{name: m, sql: [1]}]\n"})
    envelope = check_contract(run_in_process(["validate", "-p", str(root)]))
    assert [e["message"] for e in envelope["errors"]] == [
        "Invalid value at 'models[0].sql': expected a string, got a list (stream_project.yml:3:20)"
    ]


def test_a_dsn_in_dsn_env_is_never_repeated(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.id == "dsn-env-holds-a-dsn")
    root = write_project(tmp_path / "p", case.files)
    result = run_in_process(["validate", "-p", str(root)])
    check_contract(result)
    assert b"postgresql://" not in result.stdout


def test_a_project_path_longer_than_the_file_system_allows_is_e501(tmp_path: Path) -> None:
    envelope = check_contract(run_in_process(["validate", "-p", str(tmp_path / ("a" * 300))]))
    assert [e["code"] for e in envelope["errors"]] == ["E501_PARSE_ERROR"]


@pytest.mark.parametrize("command", [("validate",), ("lineage",), ("list", "models")])
def test_stdout_is_valid_utf8_when_a_path_is_not(command: tuple[str, ...], tmp_path: Path) -> None:
    missing = os.fsencode(tmp_path) + b"/nonexistent\xff"
    envelope = check_contract(run_subprocess([*command, "-p", missing]))
    assert envelope["status"] == "error"
    assert "nonexistent\\xff" in envelope["errors"][0]["message"]


def test_stdout_is_valid_utf8_when_a_declaration_file_name_is_not(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD})
    (root / "models").mkdir()
    with open(os.fsencode(root / "models") + b"/bad\xff.yml", "wb") as handle:
        handle.write(b"models: [{name: m, sql: [1]}]\n")
    envelope = check_contract(run_subprocess(["validate", "-p", str(root)]))
    assert "models/bad\\xff.yml" in envelope["errors"][0]["message"]


def test_a_declaration_symlink_out_of_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yml"
    outside.write_text("models: [{name: stolen, materialized: topic}]\n")
    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD})
    (root / "models").mkdir()
    (root / "models" / "x.yml").symlink_to(outside)
    envelope = check_contract(run_in_process(["validate", "-p", str(root)]))
    assert envelope["errors"][0]["code"] == "E501_PARSE_ERROR"
    assert "models/x.yml is a symbolic link to a file outside the project" in envelope["errors"][0]["message"]


def test_a_declaration_symlink_inside_the_project_is_read(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p", {"stream_project.yml": HEAD, "shared/m.yml": "models: [{name: m, materialized: topic}]\n"}
    )
    (root / "models").mkdir()
    (root / "models" / "x.yml").symlink_to(root / "shared" / "m.yml")
    envelope = check_contract(run_in_process(["list", "models", "-p", str(root)]))
    assert envelope["status"] == "ok", envelope["errors"]


def _registry_project(tmp_path: Path, password: str) -> Path:
    text = HEAD.replace(
        '"x:1"}', f'"x:1"}}, schema_registry: {{url: "http://user:{password}@host:8081/p?token={password}"}}'
    )
    return write_project(tmp_path / f"p{len(password)}", {"stream_project.yml": text})


def test_url_credentials_are_not_part_of_the_environment_fingerprint(tmp_path: Path) -> None:
    fingerprints = []
    for password in (SENTINEL, SENTINEL + "x"):
        root = _registry_project(tmp_path, password)
        out = tmp_path / f"{len(password)}.plan"
        envelope = check_contract(run_in_process(["plan", "--offline", "-p", str(root), "--out", str(out)]), tmp_path)
        fingerprints.append(envelope["data"]["environment_fingerprint"])
        assert SENTINEL not in out.read_text()
    # Equal fingerprints: the password changes nothing, so the fingerprint cannot be used to guess it.
    assert fingerprints[0] == fingerprints[1]
    other_host = write_project(
        tmp_path / "other",
        {"stream_project.yml": HEAD.replace('"x:1"}', '"x:1"}, schema_registry: {url: "http://other:8081"}')},
    )
    envelope = check_contract(run_in_process(["plan", "--offline", "-p", str(other_host)]))
    assert envelope["data"]["environment_fingerprint"] != fingerprints[0]


@pytest.mark.parametrize(
    "template",
    [
        "http://user:p@{secret}@host:8081/p",  # a raw '@' in the password: the authority ends at the last one
        "http://host:8081/p?sig={secret}",  # a query that is not named like a secret
        "http://host:8081/p#{secret}",
        "http://host:8081/hooks/T0000AAAA/{secret}0123456789",  # a token in the path
        "http://host:8081/token/{secret}/p",
    ],
)
def test_no_part_of_a_url_secret_enters_the_environment_fingerprint(template: str, tmp_path: Path) -> None:
    """Issue 28, finding 9: the fingerprint is the same whatever the secret, so it cannot be guessed from it."""
    fingerprints = []
    for secret in (SENTINEL, SENTINEL + "x"):
        url = template.format(secret=secret)
        text = HEAD.replace('"x:1"}', f'"x:1"}}, schema_registry: {{url: "{url}"}}')
        root = write_project(tmp_path / f"p{len(secret)}", {"stream_project.yml": text})
        out = tmp_path / f"{len(secret)}.plan"
        envelope = check_contract(run_in_process(["plan", "--offline", "-p", str(root), "--out", str(out)]), tmp_path)
        fingerprints.append(envelope["data"]["environment_fingerprint"])
    assert fingerprints[0] == fingerprints[1]


def test_a_plan_file_with_a_duplicate_key_is_refused(tmp_path: Path) -> None:
    from streamt.plan.planfile import read_plan_file

    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD + "models: [{name: m, materialized: topic}]\n"})
    plan = tmp_path / "plan.json"
    check_contract(run_in_process(["plan", "--offline", "-p", str(root), "--out", str(plan)]))
    text = plan.read_text()
    assert json.loads(text)["actions"]
    read_plan_file(plan)  # the file as written is valid
    plan.write_text(text.replace('{\n  "actions": [', '{\n  "actions": [],\n  "actions": [', 1))
    with pytest.raises(StreamtError) as refused:
        read_plan_file(plan)
    assert refused.value.diagnostics[0].code.code == "E408_PLAN_FILE_INVALID"
    assert "duplicate key 'actions'" in str(refused.value)


class _BrokenPlugin:
    """A plugin whose command hook raises: every command must still answer with its envelope."""

    @hookimpl
    def streamt_commands(self, cli: object) -> None:
        raise RuntimeError("no commands today")


def test_a_broken_plugin_never_breaks_the_envelope_of_a_failing_command(streamt_plugin, tmp_path: Path) -> None:
    streamt_plugin(_BrokenPlugin(), name="fuzz_broken")
    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD + "models: [{name: m, sql: [1]}]\n"})
    envelope = check_contract(run_in_process(["validate", "-p", str(root)]))
    assert [e["code"] for e in envelope["errors"]] == ["E501_PARSE_ERROR"]
    assert "E901_PLUGIN_LOAD_FAILED" in [w["code"] for w in envelope["warnings"]]


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (("compile", "--output-dir", "{long}"), "E905_OUTPUT_WRITE_FAILED"),
        (("docs", "generate", "--output", "{long}"), "E905_OUTPUT_WRITE_FAILED"),
        (("plan", "--offline", "--out", "{long}"), "E905_OUTPUT_WRITE_FAILED"),
        (("envs", "list", "-p", "{long}"), "E503_ENVIRONMENT_ERROR"),
        (("list", "models", "-p", "{long}"), "E501_PARSE_ERROR"),
    ],
)
def test_a_path_too_long_for_the_file_system_is_a_coded_error(
    command: tuple[str, ...], code: str, tmp_path: Path
) -> None:
    root = write_project(tmp_path / "p", {"stream_project.yml": HEAD + "models: [{name: m, materialized: topic}]\n"})
    long = str(tmp_path / ("a" * 300))
    argv = [part.replace("{long}", long) for part in command]
    if "-p" not in argv:
        argv += ["-p", str(root)]
    envelope = check_contract(run_in_process(argv))
    assert [e["code"] for e in envelope["errors"]] == [code], envelope["errors"]


@pytest.mark.parametrize(
    "schema",
    [
        "{topic: " + "t" * 249 + ", schema: {format: avro}}",  # subject <topic>-value: 255 characters
        "{topic: t, schema: {format: avro, subject: " + "s" * 300 + "}}",
        "{topic: t, schema: {format: avro, subject: '" + "/" * 100 + "'}}",  # percent-encoded: 300 bytes
    ],
)
def test_every_output_holds_the_names_validate_accepts(schema: str, tmp_path: Path) -> None:
    # Issue 28, finding 10: a subject validate accepts made compile fail with "File name too long" (E905).
    source = "sources: [{name: raw, columns: [{name: id, type: STRING}], " + schema[1:] + "]\n"
    project = "project: {name: r}\nruntime: {kafka: {bootstrap_servers: 'x:1'}, schema_registry: {url: 'http://x:1'}}\n"
    project += source
    root = write_project(tmp_path / "p", {"stream_project.yml": project})
    assert check_contract(run_in_process(["validate", "-p", str(root)]))["status"] == "ok"
    for argv in (
        ["compile", "-p", str(root)],
        ["docs", "generate", "-p", str(root), "--output", str(tmp_path / "site")],
    ):
        envelope = check_contract(run_in_process(argv))
        assert envelope["status"] == "ok", envelope["errors"]
    (subject_file,) = (root / "generated" / "schemas").iterdir()
    assert len(subject_file.name.encode()) <= 255 and subject_file.name.endswith(".json")
    manifest = json.loads((root / "generated" / "manifest.json").read_text())
    assert [entry["files"] for entry in manifest["artifacts"]["schemas"]] == [[f"schemas/{subject_file.name}"]]


def test_an_env_value_in_sql_is_a_placeholder_in_every_published_output(tmp_path: Path) -> None:
    # Issue 28, finding 9: a value read through {{ env() }} in SQL was written into show, the docs site,
    # generated/ and manifest.json. Only a variable declared in project.non_secret_env is published.
    sql = "SELECT a FROM {{ source('s') }} WHERE a = '{{ env(\"TOKEN_X\") }}' OR a = '{{ env(\"REGION\") }}'"
    project = FLINK_HEAD.replace("project: {name: r}", "project: {name: r, non_secret_env: [REGION]}") + SOURCE
    project += f"models: [{{name: m, materialized: flink, sql: {json.dumps(sql)}}}]\n"
    root = write_project(tmp_path / "p", {"stream_project.yml": project})
    (root / ".env").write_text(f"TOKEN_X={SENTINEL}\nREGION=eu-public-region\n")
    p = str(root)
    for argv in (
        ["validate", "-p", p],
        ["compile", "-p", p],
        ["show", "model", "m", "-p", p],
        ["list", "models", "-p", p],
        ["lineage", "-p", p],
        ["docs", "generate", "-p", p, "--output", str(root / "site")],
        ["plan", "--offline", "-p", p, "--out", str(root / "plan.json")],
    ):
        envelope = check_contract(run_in_process(argv), root)  # the sentinel: on no output, in no file
        assert envelope["status"] == "ok", (argv, envelope["errors"])
    (statements,) = [path.read_text() for path in (root / "generated" / "flink").glob("*.sql")]
    assert "a = '${TOKEN_X}' OR a = 'eu-public-region'" in statements


def test_non_secret_env_holds_variable_names(tmp_path: Path) -> None:
    project = HEAD.replace("project: {name: r}", "project: {name: r, non_secret_env: [OK, 'not-a-name']}")
    root = write_project(tmp_path / "p", {"stream_project.yml": project})
    envelope = check_contract(run_in_process(["validate", "-p", str(root)]))
    (error,) = envelope["errors"]
    assert error["code"] == "E501_PARSE_ERROR"
    assert error["message"].startswith("Invalid value in 'project.non_secret_env': expected a variable name")


def test_a_recovery_evidence_file_with_a_duplicate_key_is_refused(tmp_path: Path) -> None:
    from streamt.recovery import evidence

    path = tmp_path / "evidence.json"
    document = evidence.seal({"resolution": "observed", "targets": []})
    evidence.write(path, document)
    assert evidence.read(path)["resolution"] == "observed"  # as written: valid
    # The same document with a decoy first "resolution": a first-key-wins reader would see another one.
    forged = tmp_path / "forged.json"
    text = path.read_text()
    forged.write_text(text.replace("{\n", '{\n  "resolution": "rolled_back",\n', 1))
    with pytest.raises(StreamtError) as refused:
        evidence.read(forged)
    assert refused.value.diagnostics[0].code.code == "E408_PLAN_FILE_INVALID"
    for constant in ("NaN", "Infinity"):
        odd = tmp_path / f"{constant}.json"
        odd.write_text(text.replace("{\n", f'{{\n  "x": {constant},\n', 1))
        with pytest.raises(StreamtError):
            evidence.read(odd)


def test_a_yaml_infinity_passed_through_as_data_is_still_json(tmp_path: Path) -> None:
    # Found by the fuzz suite: `envs show` echoed `.inf` as `Infinity`, which no JSON parser accepts.
    root = write_project(
        tmp_path / "p",
        {
            "stream_project.yml": "project: {name: r}\n",
            "environments/dev.yml": "runtime: {kafka: {bootstrap_servers: .inf, sasl_password: .nan}}\n",
        },
    )
    envelope = check_contract(run_in_process(["envs", "show", "dev", "-p", str(root)]))
    assert envelope["data"]["config"]["runtime"]["kafka"]["bootstrap_servers"] == "inf"
