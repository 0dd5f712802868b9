"""impact's advice, followed literally on the devstack Flink cluster: a Flink SQL change on a job whose
upgrade_mode is the default (blocked) says which setting to change first and which commands to run;
doing exactly that upgrades the running job through a savepoint and it keeps counting."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_flink_lifecycle import _deployed, count_project  # noqa: F401  (the fixture is used by name)

pytestmark = [pytest.mark.kafka, pytest.mark.flink]


def _git(path: Path, *args: str) -> None:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["git", *args], cwd=path, env=env, check=True, capture_output=True)


def test_following_the_reports_setting_and_commands_upgrades_the_job(
    count_project,  # noqa: F811  (the imported fixture, requested by name)
    streamt_cli,
    tmp_path,
    monkeypatch,
) -> None:
    project = count_project()
    project.write()  # flink.upgrade_mode unset: the default, blocked
    _git(project.path, "init", "-q", "-b", "main")
    _git(project.path, "add", "stream_project.yml")
    _git(project.path, "commit", "-q", "-m", "base")
    old_job = _deployed(streamt_cli, project)

    project.write(word="y")  # the filter changes; keys, aggregate and tables stay: state-compatible
    report = streamt_cli("impact", "-p", project.path, "--base", "HEAD")
    assert report.ok, report.envelope
    [change] = [c for c in report.data["changes"] if c["advice"]]
    [advice] = change["advice"]
    assert advice["blocked"] and advice["reason"] == "flink_job_update", advice
    assert advice["setting"] == "flink.upgrade_mode: savepoint" and advice["state_compatible"] is True

    key, value = advice["setting"].split(": ")
    assert key == "flink.upgrade_mode"
    project.write(word="y", mode=value)  # the setting, changed first as the report says
    monkeypatch.chdir(tmp_path)  # the commands name PLAN.json relative to where they run
    for command in advice["commands"]:
        argv = shlex.split(command)
        assert argv[0] == "streamt"
        done = streamt_cli(*argv[1:], "-p", project.path)
        assert done.ok, (command, done.envelope)
    new_job = project.wait_state("RUNNING")
    assert new_job != old_job and [j["jid"] for j in project.live()] == [new_job]
    project.produce("k1")
    counts = project.counts("k1", until=4)
    assert counts[-1] == 4 and all(n > 3 for n in counts[3:]), counts  # restored from the savepoint
    assert json.loads((tmp_path / "PLAN.json").read_text())
