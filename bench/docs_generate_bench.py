"""Benchmark: ``streamt docs generate`` on synthetic 1,000 / 5,000-model projects, and the site in Chromium.

For each size: wall time of ``streamt docs generate`` in a fresh process (best of N), peak RSS of
that process, the site's file count and bytes (total, ``index.html``, ``lineage.html``), and in
headless Chromium (Debian's package, ``tests/infra/browser.py``) the load time of the index and the
lineage page (navigation start to the end of the load event, i.e. after the graph is drawn; best of
N), the number of graph elements drawn on load, and the time to zoom in on one node and draw it.
Usage: ``./dev bench docs_generate_bench [sizes...]``.

``--cpu BASE`` instead compares CPU (user + system of a fresh ``streamt docs generate`` process,
median of ``--rounds`` paired runs, each into a new output folder) of this checkout with the
checkout ``BASE`` (its own ``.venv``), on the same projects in the same run: once as generated
(every model declares its columns) and once with the models' ``columns`` removed, so the site
derives them from the SQL. Usage: ``./dev bench docs_generate_bench --cpu BASE [--rounds N] [sizes...]``.
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "e2e"), str(REPO / "tests" / "infra")]

import browser  # noqa: E402  (tests/infra/browser.py)
from docs_site_project import generate  # noqa: E402

ROUNDS = 3
# The ``columns`` block every model of ``docs_site_project`` declares; removed for the "derived" variant.
DECLARED = (
    "    columns:\n      - {name: id, type: STRING, description: the key}\n      - {name: amount, type: BIGINT}\n"
)


def run_generate(project: Path, site: Path) -> tuple[float, float]:
    streamt = Path(sys.executable).with_name("streamt")
    best, peak = float("inf"), 0.0
    for _ in range(ROUNDS):
        started = time.perf_counter()
        subprocess.run(
            [str(streamt), "docs", "generate", "-p", str(project), "--output", str(site)],
            check=True,
            capture_output=True,
        )
        best = min(best, time.perf_counter() - started)
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    return best, peak


def site_size(site: Path) -> dict[str, float]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return {
        "files": len(files),
        "mib": sum(p.stat().st_size for p in files) / 2**20,
        "index_kib": (site / "index.html").stat().st_size / 1024,
        "lineage_kib": (site / "lineage.html").stat().st_size / 1024,
    }


def in_chromium(site: Path) -> dict[str, float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = browser.ensure()
    options = webdriver.ChromeOptions()
    options.binary_location = paths["chromium"]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(paths["chromedriver"]), options=options)
    load = "var n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime;"
    out: dict[str, float] = {}
    try:
        for page in ("index.html", "lineage.html"):
            times = []
            for _ in range(ROUNDS):
                driver.get("about:blank")
                driver.get((site / page).as_uri())
                times.append(driver.execute_script(load))
            out[page] = min(times)
        out["drawn_on_load"] = driver.execute_script("return document.getElementById('viewport').children.length")
        started = time.perf_counter()
        driver.get((site / "lineage.html").as_uri() + "#node=m_2500")
        out["focus_ms"] = (time.perf_counter() - started) * 1000
        out["drawn_focused"] = driver.execute_script("return document.getElementById('viewport').children.length")
        driver.get((site / "index.html").as_uri())
        started = time.perf_counter()
        driver.execute_script(
            "var s = document.getElementById('search'); s.value = 'm_4242';"
            "s.form.dispatchEvent(new Event('submit', {cancelable: true}));"
        )
        out["search_ms"] = (time.perf_counter() - started) * 1000
    finally:
        driver.quit()
    return out


def main(sizes: list[int]) -> None:
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(
        "| models | generate (best of 3) | peak RSS | files | site | index.html | lineage.html "
        "| index load | lineage load | drawn on load | focus one node | search |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            project, site = Path(tmp) / "project", Path(tmp) / "site"
            generate(project, size)
            seconds, peak = run_generate(project, site)
            sized = site_size(site)
            seen = in_chromium(site)
            print(
                f"| {size:,} | {seconds:.2f} s | {peak:.0f} MiB | {sized['files']:,} | {sized['mib']:.1f} MiB "
                f"| {sized['index_kib']:.0f} KiB | {sized['lineage_kib']:.0f} KiB | {seen['index.html']:.0f} ms "
                f"| {seen['lineage.html']:.0f} ms | {seen['drawn_on_load']:,} | {seen['focus_ms']:.0f} ms "
                f"| {seen['search_ms']:.0f} ms |"
            )


def without_declared_columns(project: Path) -> None:
    for part in sorted((project / "models").glob("part_*.yml")):
        text = part.read_text()
        assert DECLARED in text, part
        part.write_text(text.replace(DECLARED, ""))


def cpu_of_generate(streamt: Path, project: Path, site: Path) -> float:
    """User + system CPU seconds of one ``docs generate`` process (runs are serial: the delta is that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [str(streamt), "docs", "generate", "-p", str(project), "--output", str(site)],
        check=True,
        capture_output=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(site)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_main(base: Path, sizes: list[int], rounds: int) -> None:
    commands = {"base": base / ".venv" / "bin" / "streamt", "branch": Path(sys.executable).with_name("streamt")}
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {' '.join(f'{x:.1f}' for x in os.getloadavg())}, base {base}, {rounds} paired rounds"
    )
    print("| models | columns | base CPU (median) | branch CPU (median) | branch / base | runs base | runs branch |")
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        for variant in ("declared", "derived"):
            with tempfile.TemporaryDirectory() as tmp:
                project = Path(tmp) / "project"
                generate(project, size)
                if variant == "derived":
                    without_declared_columns(project)
                seconds: dict[str, list[float]] = {label: [] for label in commands}
                for round_ in range(rounds):
                    # Alternate who goes first, so a load swing does not always hit the same side.
                    order = list(commands) if round_ % 2 == 0 else list(reversed(commands))
                    for label in order:
                        seconds[label].append(cpu_of_generate(commands[label], project, Path(tmp) / "site"))
            base_s, branch_s = (statistics.median(seconds[label]) for label in commands)
            runs = {label: " ".join(f"{s:.2f}" for s in seconds[label]) for label in commands}
            print(
                f"| {size:,} | {variant} | {base_s:.2f} s | {branch_s:.2f} s | {branch_s / base_s:.2f} "
                f"| {runs['base']} | {runs['branch']} |"
            )
    print(f"# load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--cpu"]:
        base_checkout = Path(arguments[1])
        rest = arguments[2:]
        rounds = 5
        if rest[:1] == ["--rounds"]:
            rounds, rest = int(rest[1]), rest[2:]
        cpu_main(base_checkout, [int(a) for a in rest] or [5000], rounds)
    else:
        main([int(a) for a in arguments] or [1000, 5000])
