"""A Docker Engine for the Kafka Streams runner, plus a Java 17 base image made from Debian packages.

``dockerd`` comes from Debian's ``docker.io`` (installed with apt-get when absent, like PostgreSQL)
and runs as a stack process with its own data root, exec root and socket under ``.stack/docker``.
It never creates a network of its own: ``--bridge=none --iptables=false --ip-masq=false``, so
containers either use host networking (and reach the stack on 127.0.0.1) or have none.

A Docker Engine the user already runs is used as is when ``STREAMT_DEVSTACK_DOCKER_HOST`` names
it: the stack then starts and stops nothing.

No image registry is reachable, so nothing is pulled. The base image is a minimal root file system
(``mmdebstrap --variant=apt`` + ``openjdk-17-jre-headless``, docs and locales trimmed), cached as
a tarball in the devstack cache under a key of its inputs, and turned into an image with
``docker import``. Its ``sha256:`` ID is recorded beside the tarball, so a warm stack neither
rebuilds the tarball nor re-imports it while the engine still holds that image.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.parse
from pathlib import Path

from . import procs
from .config import CACHE_DIR, STATE_DIR
from .service import Context, Service

EXTERNAL_ENV = "STREAMT_DEVSTACK_DOCKER_HOST"
DEBIAN_SUITE = "bookworm"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
BASE_PACKAGES = ("openjdk-17-jre-headless",)
# Trimmed from the root file system: nothing the JVM needs at run time. (Man pages stay: the JRE's
# postinst registers them as update-alternatives slaves and fails when they are missing.)
_DPKG_EXCLUDES = ("/usr/share/doc/*", "/usr/share/locale/*", "/usr/share/info/*")
APT_PACKAGES = ("docker.io", "mmdebstrap")
BASE_REPOSITORY = "streamt-devstack/java17-base"


def _apt_install(packages: list[str]) -> None:
    # PostgreSQL's fetch may run apt-get in a parallel thread: wait for dpkg's lock instead of failing.
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    wait = ["-o", "DPkg::Lock::Timeout=600"]
    for attempt in range(3):
        # `apt-get update` takes the lists lock, which DPkg::Lock::Timeout does not cover: retry it.
        if subprocess.run(["apt-get", *wait, "update", "-q"], env=env, capture_output=True).returncode == 0:
            break
        time.sleep(5 * (attempt + 1))
    subprocess.run(
        ["apt-get", *wait, "install", "-y", "-q", "--no-install-recommends", *packages],
        check=True,
        env=env,
        capture_output=True,
    )


def base_recipe() -> dict:
    """Everything the base tarball is made from: its cache key is the hash of this."""
    return {
        "suite": DEBIAN_SUITE,
        "mirror": DEBIAN_MIRROR,
        "variant": "apt",
        "packages": list(BASE_PACKAGES),
        "excludes": list(_DPKG_EXCLUDES),
    }


def base_key() -> str:
    return hashlib.sha256(json.dumps(base_recipe(), sort_keys=True).encode()).hexdigest()[:16]


BASE_TAG = f"{BASE_REPOSITORY}:{base_key()}"


def mounts_under(root: Path, mountinfo: str = "/proc/self/mountinfo") -> list[Path]:
    """Mount points at or below ``root``, from the kernel's mount table."""
    try:
        lines = Path(mountinfo).read_text().splitlines()
    except OSError:
        return []
    root = root.resolve()
    found = []
    for line in lines:
        fields = line.split(" ")
        if len(fields) < 5:
            continue
        # Field 5 is the mount point, with space, tab, newline and backslash written as octal escapes.
        point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4]))
        if point == root or root in point.parents:
            found.append(point)
    return found


class Docker(Service):
    name = "docker"
    processes = ("dockerd",)
    start_timeout = 90.0

    @property
    def home(self) -> Path:
        return STATE_DIR / "docker"

    @property
    def socket(self) -> Path:
        return self.home / "docker.sock"

    @property
    def cache(self) -> Path:
        return CACHE_DIR / "docker"

    def external_host(self) -> str | None:
        return os.environ.get(EXTERNAL_ENV) or None

    def host(self) -> str:
        return self.external_host() or f"unix://{self.socket}"

    # -- lifecycle ------------------------------------------------------------------------------
    def fetch(self, ctx: Context) -> None:
        missing = [
            p for p, binary in zip(APT_PACKAGES, ("dockerd", "mmdebstrap"), strict=True) if not shutil.which(binary)
        ]
        if self.external_host():
            missing = [p for p in missing if p != "docker.io"]
        if missing:
            if os.geteuid() != 0:
                raise RuntimeError(f"{', '.join(missing)} missing; install with apt-get")
            ctx.log(f"[fetch] installing {', '.join(missing)} with apt-get")
            _apt_install(missing)
        self._base_tarball(ctx)

    def running(self) -> bool:
        return self._external_answers() if self.external_host() else super().running()

    def any_running(self) -> bool:
        return False if self.external_host() else super().any_running()

    def start(self, ctx: Context) -> None:
        if self.external_host():
            raise RuntimeError(f"the Docker Engine at {EXTERNAL_ENV} does not answer; the stack never starts it")
        data, exec_root = self.home / "data", self.home / "exec"
        for d in (data, exec_root):
            d.mkdir(parents=True, exist_ok=True)
        self.socket.unlink(missing_ok=True)
        procs.spawn(
            "dockerd",
            [
                shutil.which("dockerd") or "dockerd",
                "--bridge=none",
                "--iptables=false",
                "--ip-masq=false",
                "--ip6tables=false",
                f"--data-root={data}",
                f"--exec-root={exec_root}",
                f"--pidfile={self.home / 'dockerd.pid'}",
                f"-H=unix://{self.socket}",
                "--log-level=warn",
            ],
            cwd=self.home,
        )

    def stop(self) -> list[str]:
        if self.external_host():
            return []
        stopped = super().stop()
        # dockerd leaves mounts behind (its network namespace, its data root bound onto itself); the
        # folder could not be removed while they remain, so unmount them, deepest first.
        for point in sorted(mounts_under(self.home), key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(["umount", str(point)], capture_output=True, timeout=10)
        return stopped

    # -- probes ---------------------------------------------------------------------------------
    def _api(self, path: str, method: str = "GET", timeout: float = 5.0) -> dict:
        host = self.host()
        if not host.startswith("unix://"):
            raise OSError(f"only unix:// Docker hosts are supported by the stack probe, not {host}")
        socket_path = urllib.parse.urlparse(host).path
        res = subprocess.run(
            ["curl", "-sf", "--max-time", str(timeout), "--unix-socket", socket_path, "-X", method, f"http://d{path}"],
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            raise OSError(f"Docker Engine API {path}: curl exit {res.returncode}")
        return json.loads(res.stdout or "{}")

    def _external_answers(self) -> bool:
        try:
            self._api("/version", timeout=2.0)
        except (OSError, ValueError):
            return False
        return True

    def probe_started(self, ctx: Context) -> str:
        version = self._api("/version")
        return f"Docker Engine {version.get('Version')} (API {version.get('ApiVersion')})"

    def probe(self, ctx: Context) -> str:
        described = self.probe_started(ctx)
        # A base image someone removed from a running engine comes back from the cached tarball.
        image = self.base_image(ctx, build=True)
        return f"{described}, base image {image}"

    def after_ready(self, ctx: Context) -> None:
        self.base_image(ctx, build=True)

    def endpoints(self, ctx: Context) -> dict[str, str]:
        out = {"docker_host": self.host()}
        image = self.base_image(ctx, build=False)
        if image:
            out["kstreams_base_image"] = image
        return out

    # -- the base image -------------------------------------------------------------------------
    def _base_tarball(self, ctx: Context) -> Path:
        tarball = self.cache / f"java17-base-{base_key()}.tar"
        if tarball.exists():
            return tarball
        self.cache.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_suffix(".partial.tar")
        partial.unlink(missing_ok=True)
        ctx.log("[fetch] building the Java 17 base root file system with mmdebstrap")
        started = time.monotonic()
        recipe = base_recipe()
        argv = [
            "mmdebstrap",
            "--quiet",
            f"--variant={recipe['variant']}",
            f"--include={','.join(recipe['packages'])}",
            *(f"--dpkgopt=path-exclude={pattern}" for pattern in recipe["excludes"]),
            "--aptopt=Acquire::Retries 3",
            recipe["suite"],
            str(partial),
            recipe["mirror"],
        ]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        if res.returncode != 0:
            partial.unlink(missing_ok=True)
            raise RuntimeError(f"mmdebstrap failed:\n{res.stderr[-4000:]}")
        partial.replace(tarball)
        ctx.set("docker_base_build_s", round(time.monotonic() - started, 1))
        return tarball

    def _id_file(self) -> Path:
        # The engine's data root is per stack; the ID is remembered per data root, not globally.
        return self.home / f"java17-base-{base_key()}.id"

    def base_image(self, ctx: Context, *, build: bool) -> str | None:
        """The base image's ``sha256:`` ID on this engine (imported from the cached tarball if needed)."""
        id_file = self._id_file()
        known = id_file.read_text().strip() if id_file.exists() else None
        if known and self._has_image(known):
            return known
        if not build:
            return None
        tarball = self._base_tarball(ctx)
        started = time.monotonic()
        env = dict(os.environ, DOCKER_HOST=self.host())
        res = subprocess.run(
            # Tagged so that removing a runner image built on it never prunes it as an untagged parent.
            ["docker", "import", "--message", f"streamt devstack Java 17 base {base_key()}", str(tarball), BASE_TAG],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        if res.returncode != 0:
            raise RuntimeError(f"docker import failed: {res.stderr.strip()[-2000:]}")
        image = res.stdout.strip()
        if not image.startswith("sha256:"):
            raise RuntimeError(f"docker import returned no image ID: {image[:200]}")
        id_file.parent.mkdir(parents=True, exist_ok=True)
        id_file.write_text(image + "\n")
        ctx.set("docker_base_import_s", round(time.monotonic() - started, 1))
        ctx.log(f"[up] docker: imported base image {image}")
        return image

    def _has_image(self, image: str) -> bool:
        try:
            self._api(f"/images/{image}/json", timeout=3.0)
        except (OSError, ValueError):
            return False
        return True
