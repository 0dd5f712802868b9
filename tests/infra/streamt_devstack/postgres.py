"""PostgreSQL 15 from Debian's packages, in its own data directory on a free loopback port.

Roles for the state-backend tests: an owner (owns database ``streamt``), a writer and a status
role.  Writer and status get no grants here: the product's ``state init``/``migrate`` grants.
Local (socket) connections trust the ``postgres`` superuser so the stack can administer itself;
TCP connections require a password (scram-sha-256), so authentication failures are testable.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
from pathlib import Path

from . import procs
from .config import HOST, PG_DATABASE, PG_ROLES, PG_SUPERUSER_PASSWORD, POSTGRES_MAJOR, STATE_DIR
from .service import Context, Service

BIN = Path(f"/usr/lib/postgresql/{POSTGRES_MAJOR}/bin")


def _run_as() -> str | None:
    # initdb/postgres refuse to run as root; elsewhere they run as the invoking user.
    if os.geteuid() == 0:
        return "postgres"
    return None


class Postgres(Service):
    name = "postgres"
    processes = ("postgres",)
    start_timeout = 60.0
    stop_signal = signal.SIGINT  # "fast" shutdown; SIGTERM would wait for clients to leave

    @property
    def home(self) -> Path:
        return STATE_DIR / "postgres"

    def fetch(self, ctx: Context) -> None:
        if (BIN / "initdb").exists():
            return
        if os.geteuid() != 0:
            raise RuntimeError(f"{BIN}/initdb missing; install postgresql-{POSTGRES_MAJOR} (apt-get)")
        ctx.log(f"[fetch] installing postgresql-{POSTGRES_MAJOR} with apt-get")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env, capture_output=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", f"postgresql-{POSTGRES_MAJOR}"],
            check=True,
            env=env,
            capture_output=True,
        )

    def _dirs(self) -> tuple[Path, Path]:
        data, sock = self.home / "data", self.home / "sock"
        user = _run_as()
        for d in (self.home, sock):
            d.mkdir(parents=True, exist_ok=True)
        if user:
            pw = pwd.getpwnam(user)
            for d in (self.home, sock):
                os.chown(d, pw.pw_uid, pw.pw_gid)
        return data, sock

    def start(self, ctx: Context) -> None:
        port = ctx.port("postgres", fresh=True)
        data, sock = self._dirs()
        user = _run_as()
        if not (data / "PG_VERSION").exists():
            if data.exists():
                shutil.rmtree(data)
            pwfile = self.home / "pwfile"
            pwfile.write_text(PG_SUPERUSER_PASSWORD + "\n")
            if user:
                pw = pwd.getpwnam(user)
                os.chown(pwfile, pw.pw_uid, pw.pw_gid)
            res = subprocess.run(
                [
                    str(BIN / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                    f"--pwfile={pwfile}",
                ],
                capture_output=True,
                text=True,
                user=user,
            )
            pwfile.unlink(missing_ok=True)
            if res.returncode != 0:
                raise RuntimeError(f"initdb failed:\n{res.stdout}{res.stderr}")
        procs.spawn(
            "postgres",
            [
                str(BIN / "postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
                "-k",
                str(sock),
                "-c",
                f"listen_addresses={HOST}",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "shared_buffers=64MB",
                "-c",
                "max_connections=100",
            ],
            cwd=self.home,
            user=user,
        )

    def psql(self, ctx: Context, sql: str, *, db: str = "postgres", dsn: str | None = None) -> str:
        port = ctx.port("postgres", fresh=False)
        target = [dsn] if dsn else ["-h", str(self.home / "sock"), "-p", str(port), "-U", "postgres", "-d", db]
        res = subprocess.run(
            [str(BIN / "psql"), *target, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if res.returncode != 0:
            raise OSError(f"psql: {res.stderr.strip()}")
        return res.stdout.strip()

    def probe_started(self, ctx: Context) -> str:
        port = ctx.port("postgres", fresh=False)
        res = subprocess.run(
            [str(BIN / "pg_isready"), "-h", HOST, "-p", str(port), "-t", "2"], capture_output=True, text=True
        )
        if res.returncode != 0:
            raise OSError(f"pg_isready: {res.stdout.strip()}")
        return self.psql(ctx, "select version()")

    def probe(self, ctx: Context) -> str:
        self.probe_started(ctx)
        # A real login over TCP with a password, as the product will do it.
        who = self.psql(ctx, "select current_user", dsn=self.dsn(ctx, "owner"))
        return f"PostgreSQL {POSTGRES_MAJOR}, login as {who} ok"

    def after_ready(self, ctx: Context) -> None:
        statements = []
        for _key, (role, password) in PG_ROLES.items():
            statements.append(
                f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN "
                f"CREATE ROLE {role} LOGIN; END IF; END $$;"
                f"ALTER ROLE {role} LOGIN PASSWORD '{password}';"
            )
        self.psql(ctx, "".join(statements))
        owner = PG_ROLES["owner"][0]
        if not self.psql(ctx, f"SELECT 1 FROM pg_database WHERE datname = '{PG_DATABASE}'"):
            self.psql(ctx, f"CREATE DATABASE {PG_DATABASE} OWNER {owner}")

    def dsn(self, ctx: Context, which: str) -> str:
        role, password = PG_ROLES[which]
        port = ctx.port("postgres", fresh=False)
        return f"postgresql://{role}:{password}@{HOST}:{port}/{PG_DATABASE}"

    def endpoints(self, ctx: Context) -> dict[str, str]:
        return {
            "postgres_dsn": self.dsn(ctx, "owner"),
            "postgres_writer_dsn": self.dsn(ctx, "writer"),
            "postgres_status_dsn": self.dsn(ctx, "status"),
        }
