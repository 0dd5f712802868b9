"""The generated site in headless Chromium (Debian's package, driven by selenium).

Opened straight from disk (``file://``) as a user would: no console errors (the pages' own
Content-Security-Policy forbids network access, so a stray fetch would be one), the lineage graph
draws exactly the declared nodes and edges, clicking a node opens its page, and the index search
finds a model. A screenshot of each lineage page is kept under ``tests/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from docs_site_project import expected_edges, expected_nodes, generate

pytestmark = pytest.mark.browser  # Chromium: outside the fast lane

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "artifacts"
QUICKSTART = REPO / "examples" / "quickstart"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    import browser as chromium_install  # tests/infra/browser.py, on sys.path through the root conftest
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    try:
        paths = chromium_install.ensure()
    except (RuntimeError, OSError) as exc:  # CI installs it (root); elsewhere say what is missing
        if os.environ.get("CI") == "true":
            pytest.fail(f"chromium unavailable: {exc}")
        pytest.skip(f"chromium unavailable: {exc}")
    options = webdriver.ChromeOptions()
    options.binary_location = paths["chromium"]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,900",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(paths["chromedriver"]), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


# One script call per question: an attribute read per element is a WebDriver round trip, which for the
# 1,000-model site's 3,000 reads was most of the test's time.
ATTRIBUTES = (
    "return Array.from(document.querySelectorAll(arguments[0]), e => arguments[1].map(n => e.getAttribute(n)));"
)


def named(driver: Any, selector: str) -> set[str]:
    """The ``data-name`` of every element ``selector`` matches."""
    return {name for (name,) in driver.execute_script(ATTRIBUTES, selector, ["data-name"])}


def drawn_graph(driver: Any) -> tuple[set[str], set[tuple[str, str]]]:
    edges = driver.execute_script(ATTRIBUTES, "#graph path.edge", ["data-from", "data-to"])
    return named(driver, "#graph g.node"), {(a, b) for a, b in edges}


def generate_site(streamt_cli: Any, project: Path, out: Path) -> Path:
    outcome = streamt_cli("docs", "generate", "-p", project, "--output", out)
    assert outcome.ok, outcome.envelope
    return out


def check_site(driver: Any, site: Path, nodes: set[str], edges: set[tuple[str, str]], model: str, shot: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get((site / "lineage.html").as_uri())
    assert driver.find_element(By.CSS_SELECTOR, "#graph").is_displayed()
    assert drawn_graph(driver) == (nodes, edges)  # "fit" on load: every node and edge is drawn
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(ARTIFACTS / shot))
    assert console_errors(driver) == []

    # Focusing a node (as the pages' "Open in the lineage graph" link does) centres and highlights it...
    driver.get((site / "lineage.html").as_uri() + f"#node={model}")
    target = driver.find_element(By.CSS_SELECTOR, f'#graph g.node[data-name="{model}"]')
    assert "focus" in target.get_attribute("class")
    lit = named(driver, "#graph g.node.lit")
    assert {a for a, b in edges if b == model} <= lit and {b for a, b in edges if a == model} <= lit
    # ...and clicking it opens its page.
    target.click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith(f"/models/{model}.html"))
    assert driver.find_element(By.TAG_NAME, "h1").text == model
    assert console_errors(driver) == []

    driver.get((site / "index.html").as_uri())
    driver.find_element(By.ID, "search").send_keys(model)
    listed = (
        "return Array.from(document.querySelectorAll('#resources tbody tr'))"
        ".map(r => [r.cells[0].textContent, r.dataset.search])"
    )
    rows = WebDriverWait(driver, 10).until(
        lambda d: (found := d.execute_script(listed)) and found[0][0] == model and found
    )
    assert all(model in search for _name, search in rows)  # every listed row matches, the model first
    assert console_errors(driver) == []


def test_the_quickstart_site_in_chromium(browser: Any, streamt_cli: Any, tmp_path: Path) -> None:
    site = generate_site(streamt_cli, QUICKSTART, tmp_path / "site")
    # The expected graph comes from `streamt lineage`, not from the site generator.
    lineage = streamt_cli("lineage", "-p", QUICKSTART).data
    nodes = {n["name"] for n in lineage["nodes"]}
    edges = {(e["from"], e["to"]) for e in lineage["edges"]}
    model = next(n["name"] for n in lineage["nodes"] if n["type"] == "model" and n["upstream"])
    check_site(browser, site, nodes, edges, model, "docs-site-quickstart-lineage.png")


def test_a_1000_model_site_in_chromium(browser: Any, streamt_cli: Any, tmp_path: Path) -> None:
    generate(tmp_path / "project", 1000)
    site = generate_site(streamt_cli, tmp_path / "project", tmp_path / "site")
    check_site(browser, site, expected_nodes(1000), expected_edges(1000), "m_517", "docs-site-1000-lineage.png")
