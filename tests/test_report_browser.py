"""The HTML balance report in a real browser (issue 38, "Done means"): at a 1280 px window nothing
scrolls sideways, printed to A4 the 5-player report takes at most 12 pages and the all-counts
report at most 30, no table column is cut off at the A4 printable width in print media, and the
summary is the first section.

Debian's headless Chromium through its chromedriver (apt-get install chromium chromium-driver;
.ci/run installs them); without /usr/bin/chromium or /usr/bin/chromedriver the module is skipped.
The reports are of the shipped configs/5p.toml and configs/all-counts.toml with fewer games: the
page's layout (its tables, cards and figures) does not depend on the game count."""

from __future__ import annotations

import base64
import io
import re
import tomllib
from pathlib import Path

import pytest

from tests.support.browser import chromium_driver, needs_browser

pytestmark = needs_browser

from pypdf import PdfReader  # noqa: E402
from selenium.webdriver.common.print_page_options import PrintOptions  # noqa: E402

from simcell.reports.build import build_report  # noqa: E402
from simcell.runner.run import RunOptions, Runner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"

# the shipped config, games per player count for the test's run, and the most A4 pages allowed
REPORTS = {
    "5p": ("5p.toml", 20_000, 12),
    "all-counts": ("all-counts.toml", 4_000, 30),
}
SCREEN_WIDTH = 1280  # px
A4_CM = (21.0, 29.7)
MARGIN_CM = 1.0  # the WebDriver print default, each side
PRINT_WIDTH = int((A4_CM[0] - 2 * MARGIN_CM) / 2.54 * 96)  # A4's printable width in CSS px: 718

# -- the runs and their reports ----------------------------------------------------------------
def small_config(name: str, games: int, folder: Path) -> Path:
    """A copy of configs/`name` in `folder` with `games` games per player count; relative paths
    (a [data] file, a user policy 'file.py:function') made absolute so they still resolve."""
    text = (CONFIGS / name).read_text()
    parsed = tomllib.loads(text)
    text, n = re.subn(r"(?m)^(\s*games\s*=\s*)\S+", rf"\g<1>{games}", text, count=1)
    assert n == 1, f"configs/{name}: no 'games = ' line to change"
    relative = [v for v in parsed.get("data", {}).values() if not Path(v).is_absolute()]
    for field in parsed.get("field", []):
        for key in ("policy", "seats", "pool"):
            names = field.get(key, [])
            for v in [names] if isinstance(names, str) else names:
                if ":" in v and not Path(v).is_absolute():
                    relative.append(v)
    for v in relative:
        for quote in ('"', "'"):
            text = text.replace(f"{quote}{v}{quote}", f'"{(CONFIGS / v).resolve().as_posix()}"')
    copied = tomllib.loads(text)
    assert copied["run"]["games"] == games
    assert all(Path(v).is_absolute() for v in copied.get("data", {}).values())
    path = folder / name  # the same file name: the report's title names it
    path.write_text(text)
    return path


@pytest.fixture(scope="module", params=sorted(REPORTS))
def report(request, tmp_path_factory) -> tuple[str, Path]:
    """(name, report.html) of a run of a shipped config, built once per module."""
    name = request.param
    config_name, games, _ = REPORTS[name]
    folder = tmp_path_factory.mktemp(f"browser-{name}")
    config = small_config(config_name, games, folder)
    out = folder / "out"
    Runner(config, RunOptions(out=out, workers=1)).run()
    page = build_report(out) / "report.html"
    assert page.is_file()
    return name, page


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    d = chromium_driver(tmp_path_factory.mktemp("chromium-profile"))
    yield d
    d.quit()


# -- the checks --------------------------------------------------------------------------------
def show(driver, page: Path, width: int, media: str = "screen") -> None:
    """Load `page` in a viewport `width` CSS px wide, in screen or emulated print media."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print" if media == "print" else ""})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    driver.get(page.as_uri())
    assert driver.execute_script("return window.innerWidth") == width
    assert driver.execute_script("return matchMedia(arguments[0]).matches", media)


SIDEWAYS_JS = """
const root = document.documentElement;
const label = (el) => {
  const h = document.evaluate('preceding::*[self::h2 or self::h3][1]', el, null,
                              XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
             + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  return h ? `${name} under ${h.tagName.toLowerCase()} "${h.textContent.trim()}"` : `${name} (no heading before it)`;
};
const out = {viewport: root.clientWidth, document: {scrollWidth: root.scrollWidth,
             clientWidth: root.clientWidth}, tables: 0, overflows: []};
if (root.scrollWidth > root.clientWidth) {
  out.overflows.push({element: 'the document', excess: root.scrollWidth - root.clientWidth,
                      how: `scrolls sideways (scrollWidth ${root.scrollWidth} > clientWidth ${root.clientWidth})`});
}
for (const el of document.querySelectorAll('body *')) {
  const isTable = el.tagName === 'TABLE';
  if (isTable) out.tables += 1;
  const style = getComputedStyle(el);
  const scrolls = ['auto', 'scroll', 'hidden', 'clip'].includes(style.overflowX);
  if ((isTable || scrolls) && el.scrollWidth > el.clientWidth) {
    out.overflows.push({element: label(el), excess: el.scrollWidth - el.clientWidth,
                        how: `its content is wider than its box (scrollWidth ${el.scrollWidth} > clientWidth ${el.clientWidth}, display ${style.display}, overflow-x ${style.overflowX})`});
  }
  if (isTable) {
    const r = el.getBoundingClientRect();
    const right = Math.ceil(r.right + window.scrollX);
    if (right > root.clientWidth) {
      out.overflows.push({element: label(el), excess: right - root.clientWidth,
                          how: `reaches past the page's right edge (right ${right} > ${root.clientWidth})`});
    }
  }
}
return out;
"""


def sideways(driver) -> dict:
    """What overflows sideways on the loaded page: {'viewport': px, 'document': {scrollWidth,
    clientWidth}, 'tables': how many, 'overflows': [{'element', 'excess' (px), 'how'}]}. An
    overflow is the document scrolling sideways, a table (or any element that clips or scrolls
    on x) whose content is wider than its box (a display:block table has its own scroll box),
    or a table reaching past the page's right edge."""
    return driver.execute_script(SIDEWAYS_JS)


def describe(result: dict) -> str:
    lines = [f"{len(result['overflows'])} overflow(s) at a {result['viewport']} px page "
             f"({result['tables']} tables):"]
    lines += [f"  {o['element']}: {o['how']}, {o['excess']} px too wide" for o in result["overflows"]]
    return "\n".join(lines)


def pdf_pages(driver, page: Path) -> int:
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    driver.get(page.as_uri())
    options = PrintOptions()
    options.page_width, options.page_height = A4_CM
    pdf = base64.b64decode(driver.print_page(options))
    (page.parent / "report-a4.pdf").write_bytes(pdf)
    return len(PdfReader(io.BytesIO(pdf)).pages)


# -- the checker can fail ----------------------------------------------------------------------
WIDE_ROW = "".join(f"<td>column {i} with a long heading</td>" for i in range(40))
HAND_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
td{{white-space:nowrap}} {css}</style></head><body><h2 id="x">Section</h2><h3>{title}</h3>
<table><tr>{row}</tr></table></body></html>"""


@pytest.mark.parametrize(
    ("css", "row", "expect"),
    [
        ("", WIDE_ROW, ["the document", 'table under h3 "Wide table"']),
        ("table{display:block;overflow-x:auto}", WIDE_ROW, ['table under h3 "Wide table"']),
        ("", "<td>narrow</td>", []),
    ],
    ids=["plain-table", "block-table", "narrow-table"],
)
def test_the_checker_finds_a_table_wider_than_the_window(driver, tmp_path, css, row, expect):
    page = tmp_path / "hand.html"
    page.write_text(HAND_PAGE.format(css=css, row=row, title="Wide table"))
    show(driver, page, SCREEN_WIDTH)
    result = sideways(driver)
    assert result["tables"] == 1
    assert sorted({o["element"] for o in result["overflows"]}) == sorted(expect), describe(result)
    assert all(o["excess"] > 0 for o in result["overflows"])
    if expect:
        assert max(o["excess"] for o in result["overflows"]) > 500, describe(result)


# -- the report --------------------------------------------------------------------------------
# on screen at 1280 px nothing scrolls sideways; in print media at the A4 printable width no
# table column is cut off
@pytest.mark.parametrize("width, media", [(SCREEN_WIDTH, "screen"), (PRINT_WIDTH, "print")],
                         ids=["screen-1280px", "print-a4"])
def test_nothing_wider_than_the_page(driver, report, width, media):
    name, page = report
    show(driver, page, width, media=media)
    result = sideways(driver)
    print(f"\n{name} report at {width} px ({media}): {describe(result)}")
    assert result["tables"] > 0
    assert not result["overflows"], f"{name} report at {width} px ({media}): {describe(result)}"


def test_a4_print_page_count(driver, report):
    name, page = report
    limit = REPORTS[name][2]
    pages = pdf_pages(driver, page)
    print(f"\n{name} report printed to A4: {pages} pages (at most {limit})")
    assert pages <= limit, f"{name} report prints to {pages} A4 pages; at most {limit}"


def test_summary_is_the_first_section(driver, report):
    name, page = report
    show(driver, page, SCREEN_WIDTH)
    first = driver.execute_script(
        "const h = document.querySelector('h2'); return h && [h.id, h.textContent.trim()];")
    assert first is not None, f"{name} report has no <h2>"
    assert first[0] == "summary", (
        f"{name} report: the first section is <h2 id={first[0]!r}> {first[1]!r}, not the summary "
        "(<h2 id=\"summary\">)")
