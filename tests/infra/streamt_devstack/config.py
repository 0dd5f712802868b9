"""Locations and the pinned version set, in one place so the README and the code agree."""

from __future__ import annotations

import os
from pathlib import Path

INFRA_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = INFRA_DIR.parent.parent
MAVEN_DIR = INFRA_DIR / "maven"
CHECKSUM_FILE = INFRA_DIR / "jars.sha256"

# Overridable so CI or a second checkout can keep its own state beside the default.
STATE_DIR = Path(os.environ.get("STREAMT_STACK_DIR", REPO_ROOT / ".stack")).resolve()
CACHE_DIR = Path(os.environ.get("STREAMT_DEVSTACK_CACHE", Path.home() / ".cache" / "streamt-devstack")).resolve()
# The stack writes only its own endpoints file. ``STREAMT_STACK_ENDPOINTS`` names another stack's file for the
# test fixtures to read; a stack this checkout starts never writes there (a teardown once blanked a shared file).
ENDPOINTS_FILE = STATE_DIR / "endpoints.json"

LOG_DIR = STATE_DIR / "logs"
PID_DIR = STATE_DIR / "pids"
STATE_FILE = STATE_DIR / "state.json"

KAFKA_VERSION = "4.1.1"
FLINK_VERSION = "2.2.0"
FLINK_KAFKA_CONNECTOR = "5.0.0-2.2"
APICURIO_VERSION = "3.3.3"
POSTGRES_MAJOR = "15"

# Credentials are fixed and public: this stack only ever listens on loopback.
KAFKA_SASL_USERS = {"admin": "admin-secret", "alice": "alice-secret"}
PG_SUPERUSER_PASSWORD = "postgres-pw"
PG_ROLES = {
    "owner": ("streamt_owner", "owner-pw"),
    "writer": ("streamt_writer", "writer-pw"),
    "status": ("streamt_status", "status-pw"),
}
PG_DATABASE = "streamt"
GATEWAY_USER = ("admin", "conduktor")

ENDPOINT_KEYS = (
    "kafka_bootstrap",
    "kafka_sasl_bootstrap",
    "schema_registry_url",
    "connect_url",
    "flink_rest_url",
    "flink_sql_gateway_url",
    "postgres_dsn",
    "postgres_writer_dsn",
    "postgres_status_dsn",
    "gateway_url",
    "docker_host",
    "kstreams_base_image",
)

HOST = "127.0.0.1"


def _java_major(home: Path) -> int:
    try:
        for line in (home / "release").read_text().splitlines():
            if line.startswith("JAVA_VERSION="):
                v = line.split("=", 1)[1].strip().strip('"')
                return int(v.split(".")[0])
    except (OSError, ValueError):
        pass
    return 0


def java_bin_at_least(major: int) -> str:
    """A java of at least ``major``: JAVA_HOME, then the oldest fitting JDK under /usr/lib/jvm.

    Apicurio 3.3 is built for Java 21 while the rest of the stack runs on the default 17; the
    machine image carries a Temurin JDK beside it (override with STREAMT_DEVSTACK_JAVA21_HOME).
    """
    candidates = []
    for env in ("STREAMT_DEVSTACK_JAVA21_HOME", "JAVA_HOME"):
        if os.environ.get(env):
            candidates.append(Path(os.environ[env]))
    jvms = Path("/usr/lib/jvm")
    if jvms.is_dir():
        candidates += sorted((p for p in jvms.iterdir() if (p / "bin" / "java").exists()), key=_java_major)
    for home in candidates:
        if _java_major(home) >= major and (home / "bin" / "java").exists():
            return str(home / "bin" / "java")
    raise RuntimeError(f"no Java {major}+ found (JAVA_HOME, /usr/lib/jvm); set STREAMT_DEVSTACK_JAVA21_HOME")


def java_bin() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return "java"
