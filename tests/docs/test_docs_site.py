"""The dbt docs site, checked in a real browser: headless Chromium through selenium.

On the session's built project, `dbt docs generate` writes target/ (index.html, the
manifest and catalog, and docs/pictures copied by `asset-paths`; the `docs_target`
fixture, shared with the e2e test). A copy of it is served by http.server on 127.0.0.1
(a free port, in a thread) and opened in Debian's Chromium
(`make browser` installs it): the package's page shows the "Which macro do I need" guide,
the lineage graph draws its nodes on its canvas (cytoscape), and on two model pages and a
macro page every picture loads: the model pages' from the files `asset-paths` copied, the
macro page's inline (data URIs from docs/pictures/macro_pictures.md, which any project
that installs the package has). Screenshots are saved under the
test's temporary folder, named after what they show, and their paths printed.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1400,1000", "--hide-scrollbars",
]
WAIT_S = 30

MODEL_PAGES = {
    "weather_minmax_24h": ["sqlstream_range_ties.svg"],
    "trade_volume_30s": ["streambase_tumbling.svg"],
}
MACRO_PAGES = {"range_window_aggregate": ["sqlstream_range_ties", "sqlstream_range_following"]}


# --- serving and driving, usable outside pytest (a standalone script can call these) ---


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """http.server on 127.0.0.1 (a free port) in a thread, serving `directory`; yields its URL."""

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 (the base class's name)
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler,
                                                                                 directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, name="docs-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def chromium(user_data_dir: Path):
    """Headless Chromium (Debian's binary and driver) with a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            raise AssertionError(f"{path} is missing: `make browser` installs Debian's chromium and chromium-driver")
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={user_data_dir}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(WAIT_S)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, script: str, *args, timeout: float = WAIT_S):
    """Run `script` until it returns something truthy; that value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2).until(lambda d: d.execute_script(script, *args))


def open_page(driver, base: str, route: str) -> None:
    # A fresh load of the app for each page: a route change alone keeps what an earlier
    # page left open (the lineage graph's full-screen panel covers the next page).
    driver.get("about:blank")
    driver.get(f"{base}/#!/{route}")
    # the app has loaded the manifest and catalog and rendered the route
    wait_for(driver, "return document.querySelector('.app-body, .app-content') !== null "
                     "&& document.body.innerText.length > 200")


PICTURES_LOADED = """
const images = Array.from(document.querySelectorAll('.model-markdown img'));
if (images.length === 0 || !images.every(img => img.complete)) return null;
return images.map(img => ({src: img.getAttribute('src'), width: img.naturalWidth, shown: img.clientWidth}));
"""


def pictures_on_page(driver) -> list[dict]:
    """Every picture of the page's descriptions, once all have loaded (or failed)."""
    return wait_for(driver, PICTURES_LOADED)


def screenshot(driver, folder: Path, name: str, scroll_to: str | None = None) -> Path:
    if scroll_to:
        driver.execute_script("const e = document.querySelector(arguments[0]); "
                              "if (e) e.scrollIntoView({block: 'center'});", scroll_to)
        time.sleep(0.3)
    path = folder / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot {path}"
    return path


GUIDE = """
const heading = Array.from(document.querySelectorAll('h2'))
    .find(h => h.textContent.trim() === 'Which macro do I need');
if (!heading) return null;
let table = heading.nextElementSibling;
while (table && table.tagName !== 'TABLE') table = table.nextElementSibling;
if (!table) return null;
heading.id = 'which-macro-guide';
const rows = Array.from(table.querySelectorAll('tbody tr'));
return {rows: rows.length,
        header: Array.from(table.querySelectorAll('thead th')).map(th => th.textContent.trim()),
        macros: rows.map(row => row.querySelector('td:nth-child(2)').textContent.trim())};
"""

GRAPH = """
const injector = window.angular && angular.element(document.body).injector();
if (!injector) return null;
const graph = injector.get('graph');
const cy = graph.graph_element;
if (!cy || graph.loading || cy.nodes().length === 0) return null;
const canvases = Array.from(cy.container().querySelectorAll('canvas'));
// pixels drawn on the node layer: cytoscape paints the nodes on one of its canvases
let painted = 0;
for (const canvas of canvases) {
  if (canvas.width === 0 || canvas.height === 0) continue;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
}
if (painted === 0) return null;
return {nodes: cy.nodes().length, visible: cy.nodes(':visible').length, edges: cy.edges().length,
        pristine: Object.keys(graph.graph.pristine.nodes).length, painted: painted,
        canvases: canvases.map(c => [c.width, c.height]),
        labels: cy.nodes(':visible').map(n => n.data('label'))};
"""


def check_overview(driver, base: str, shots: Path) -> tuple[dict, Path]:
    open_page(driver, base, "overview/stream_windows")
    guide = wait_for(driver, GUIDE)
    return guide, screenshot(driver, shots, "docs_site_package_page_which_macro_guide", "#which-macro-guide")


def check_lineage(driver, base: str, shots: Path) -> tuple[dict, Path]:
    open_page(driver, base, "model/model.stream_windows.weather_minmax_24h")
    launcher = wait_for(driver, "return document.querySelector('[title=\"View Lineage Graph\"]') || "
                                "document.querySelector('[data-original-title=\"View Lineage Graph\"]')")
    launcher.click()
    wait_for(driver, GRAPH)  # the side panel's graph
    expand = wait_for(driver, "return document.querySelector('[ng-click=\"showExpanded()\"]')")
    expand.click()
    wait_for(driver, "return angular.element(document.body).injector().get('graph').orientation === 'fullscreen'")
    time.sleep(1)  # the layout animates into place
    graph = wait_for(driver, GRAPH)
    return graph, screenshot(driver, shots, "docs_site_lineage_graph_weather_minmax_24h")


def check_page(driver, base: str, shots: Path, kind: str, name: str) -> tuple[list[dict], Path]:
    open_page(driver, base, f"{kind}/{kind}.stream_windows.{name}")
    images = pictures_on_page(driver)
    return images, screenshot(driver, shots, f"docs_site_{kind}_{name}_pictures", ".model-markdown img")


# --- the tests ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docs_site(docs_target) -> Iterator[str]:
    """The built project's docs site, generated and served."""
    target = docs_target
    assert (target / "index.html").exists() and (target / "catalog.json").exists()
    assert (target / "docs" / "pictures" / "sqlstream_range_ties.svg").exists(), "asset-paths not copied"
    with serve(target) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("docs_site_screenshots")


def _report(capsys, path: Path, what: str) -> None:
    with capsys.disabled():
        print(f"\nscreenshot ({what}): {path}")


def test_the_package_page_shows_the_which_macro_guide(docs_site, browser, shots, capsys):
    guide, path = check_overview(browser, docs_site, shots)
    _report(capsys, path, "the package's page, the Which macro do I need guide")
    assert guide["header"][0] == "Engine term" and guide["rows"] >= 15, guide
    assert "stream_windows.range_window_aggregate" in guide["macros"], guide


def test_lineage_graph_draws_its_nodes(docs_site, browser, shots, capsys):
    graph, path = check_lineage(browser, docs_site, shots)
    _report(capsys, path, "lineage graph around weather_minmax_24h")
    assert graph["pristine"] > 50, graph  # the whole project's nodes are in the app's graph data
    assert graph["visible"] >= 3 and graph["painted"] > 1000, graph
    assert all(w > 0 and h > 0 for w, h in graph["canvases"]), graph
    assert "weather_minmax_24h" in graph["labels"] and "stg_sqlstream__weather_readings" in graph["labels"], graph


@pytest.mark.parametrize(("kind", "name", "pictures"), [
    *[("model", name, pictures) for name, pictures in MODEL_PAGES.items()],
    *[("macro", name, pictures) for name, pictures in MACRO_PAGES.items()],
])
def test_pictures_load_on_the_page(docs_site, browser, shots, capsys, kind, name, pictures):
    images, path = check_page(browser, docs_site, shots, kind, name)
    _report(capsys, path, f"{kind} page {name}")
    expected = ([f"docs/pictures/{p}" for p in pictures] if kind == "model" else
                [inline_picture(p) for p in pictures])
    assert [img["src"] for img in images] == expected, [img["src"][:80] for img in images]
    assert all(img["width"] > 0 and img["shown"] > 0 for img in images), images


def inline_picture(name: str) -> str:
    """The data URI of a macro page's picture, as docs/pictures/macro_pictures.md holds it."""
    text = (PROJECT_DIR / "docs" / "pictures" / "macro_pictures.md").read_text()
    opening = f"{{% docs stream_windows_picture_{name} %}}"
    start = text.index(opening) + len(opening)
    uri = text[start:text.index("{% enddocs %}", start)]
    assert uri.startswith("data:image/svg+xml;base64,")
    return uri
