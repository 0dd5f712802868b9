#!/usr/bin/env python3
"""streamt devstack: real local Kafka, Schema Registry, Connect, Flink, PostgreSQL and a
Conduktor Gateway stub, without Docker.  ``./dev stack <verb>`` runs this file.

  up [--only a,b]       start (idempotent); returns when every service answers
  down [--only a,b] [--purge]
                        stop by PID (TERM, then KILL); --purge also deletes .stack/ data
  status [--json]       endpoints and liveness (exit 1 if a service is not ready)
  logs [svc] [-n N] [-f]
                        tail the logs in .stack/logs/
  fetch [--update-checksums]
                        download/resolve every artifact only (and verify jars.sha256)
  env                   print endpoints as shell variables (eval "$(./dev stack env)")

Stdlib only: it runs before any virtualenv exists.  See tests/infra/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from streamt_devstack import artifacts, procs, stack
from streamt_devstack.config import ENDPOINTS_FILE, LOG_DIR, STATE_DIR


def _only(value: str | None) -> list[str] | None:
    return [v for v in value.split(",") if v.strip()] if value else None


def cmd_up(args) -> int:
    try:
        endpoints = stack.up(_only(args.only))
    except stack.StackError as e:
        print(f"[up] FAILED\n{e}", file=sys.stderr)
        print("[up] services that did start are left running; `down` stops them.", file=sys.stderr)
        return 1
    print(json.dumps(endpoints, indent=2))
    return 0


def cmd_down(args) -> int:
    stack.down(_only(args.only))
    if args.purge:
        if args.only:
            print("[down] --purge ignores --only and removes all of .stack/", file=sys.stderr)
            stack.down(None)
        shutil.rmtree(STATE_DIR, ignore_errors=True)
        print(f"[down] removed {STATE_DIR}")
    return 0


def cmd_status(args) -> int:
    rows = stack.status(_only(args.only))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            mark = "UP  " if r["ready"] else ("BAD " if r["running"] else "DOWN")
            rss = f"{r['rss_mb']:>5} MB" if r["rss_mb"] is not None else "       -"
            print(f"{mark} {r['service']:<16}{rss}  {r['detail']}")
            for k, v in r["endpoints"].items():
                print(f"       {k:<24}{v}")
        print(f"endpoints file: {ENDPOINTS_FILE}")
    return 0 if all(r["ready"] for r in rows) else 1


def cmd_logs(args) -> int:
    names = []
    if args.service:
        for raw in args.service:
            svc = stack.select([raw], with_needs=False)[0]
            names += list(svc.processes)
    else:
        names = sorted(p.stem for p in LOG_DIR.glob("*.log"))
    for n in names:
        print(f"==> {procs.logfile(n)} <==")
        print(procs.tail(procs.logfile(n), args.lines))
    if args.follow:
        sizes = {n: procs.logfile(n).stat().st_size if procs.logfile(n).exists() else 0 for n in names}
        try:
            while True:
                for n in names:
                    path = procs.logfile(n)
                    if not path.exists():
                        continue
                    size = path.stat().st_size
                    if size > sizes[n]:
                        with open(path, "rb") as f:
                            f.seek(sizes[n])
                            for line in f.read().decode("utf-8", "replace").splitlines():
                                print(f"[{n}] {line}")
                        sizes[n] = size
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


def cmd_fetch(args) -> int:
    t0 = time.monotonic()
    artifacts.fetch_all(update_checksums=args.update_checksums)
    for svc in stack.SERVICES.values():
        svc.fetch(stack.Context())
    print(f"[fetch] all artifacts present and verified in {time.monotonic() - t0:.1f}s")
    return 0


def cmd_env(_args) -> int:
    try:
        data = json.loads(ENDPOINTS_FILE.read_text())
    except OSError:
        print(f"no {ENDPOINTS_FILE}; run `./dev stack up`", file=sys.stderr)
        return 1
    for k, v in data.items():
        if v is not None:
            print(f"export STREAMT_{k.upper()}='{v}'")
    if data.get("kstreams_base_image"):
        # The variable `streamt runtime build` reads for --base-image (STREAMT_KSTREAMS_BASE_IMAGE works too).
        print(f"export STREAMT_RUNNER_BASE_IMAGE='{data['kstreams_base_image']}'")
    if data.get("docker_host"):
        # What the docker CLI, docker-py and `streamt runtime build` read to find the engine.
        print(f"export DOCKER_HOST='{data['docker_host']}'")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="./dev stack", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("up", help="start the stack (idempotent)")
    s.add_argument("--only", help="comma-separated services: " + ",".join(stack.SERVICES))
    s.set_defaults(fn=cmd_up)
    s = sub.add_parser("down", help="stop the stack")
    s.add_argument("--only")
    s.add_argument("--purge", action="store_true", help="also delete .stack/ (data, logs)")
    s.set_defaults(fn=cmd_down)
    s = sub.add_parser("status", help="endpoints and liveness")
    s.add_argument("--only")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_status)
    s = sub.add_parser("logs", help="tail service logs")
    s.add_argument("service", nargs="*")
    s.add_argument("-n", "--lines", type=int, default=40)
    s.add_argument("-f", "--follow", action="store_true")
    s.set_defaults(fn=cmd_logs)
    s = sub.add_parser("fetch", help="download artifacts only")
    s.add_argument(
        "--update-checksums", action="store_true", help="(re)write tests/infra/jars.sha256 from what was resolved"
    )
    s.set_defaults(fn=cmd_fetch)
    s = sub.add_parser("env", help="endpoints as shell exports")
    s.set_defaults(fn=cmd_env)
    args = p.parse_args(argv)
    os.umask(0o022)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
