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
import unicodedata
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
# (the 5-player report was 22 pages before the print work; the Goals section added its page)
REPORTS = {
    "5p": ("5p.toml", 20_000, 14),
    "all-counts": ("all-counts.toml", 4_000, 15),
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


def pdf_of(driver, page: Path) -> PdfReader:
    """The page printed to A4 by Chromium (also written beside it as report-a4.pdf)."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    driver.get(page.as_uri())
    options = PrintOptions()
    options.page_width, options.page_height = A4_CM
    pdf = base64.b64decode(driver.print_page(options))
    (page.parent / "report-a4.pdf").write_bytes(pdf)
    return PdfReader(io.BytesIO(pdf))


def pdf_pages(driver, page: Path) -> int:
    return len(pdf_of(driver, page).pages)


# words of table cells that the layout split over two lines ("playe / rs"); a break after a
# hyphen, a dash, a slash or a zero-width space (a config key's dots) is a break between words
BROKEN_WORDS_JS = r"""
const out = [];
const visible = (el) => el.offsetParent !== null && !el.closest('details');
const heading = (el) => {
  const h = document.evaluate('preceding::*[self::h2 or self::h3][1]', el, null,
                              XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  return h ? h.textContent.trim() : '(no heading)';
};
for (const cell of document.querySelectorAll('th, td')) {
  if (!visible(cell)) continue;
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const re = /[^\s\-\u2010-\u2015\u2212/\u200b]+[\-\u2010-\u2015\u2212/\u200b]?/g;
    let m;
    while ((m = re.exec(node.data)) !== null) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                           .map(r => Math.round(r.top)));
      if (tops.size > 1) out.push({table: heading(cell), cell: cell.tagName.toLowerCase(),
                                   word: m[0], text: cell.textContent.trim().slice(0, 60)});
    }
  }
}
return out;
"""

# columns of a shown table whose every body cell is empty, or empty in every row of one player
# count (a table whose first column is "players": its 2-player rows under seat 2, 3 and 4)
EMPTY_COLUMNS_JS = """
const out = [];
for (const table of document.querySelectorAll('table')) {
  if (table.offsetParent === null || table.closest('details')) continue;
  const head = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
  const rows = [...table.querySelectorAll('tbody tr')];
  if (!rows.length) continue;
  const h = document.evaluate('preceding::*[self::h2 or self::h3][1]', table, null,
                              XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  const title = h ? h.textContent.trim() : '(no heading)';
  const groups = new Map();
  for (const r of rows) {
    const key = head[0] === 'players' ? r.children[0].textContent.trim() : '';
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  head.forEach((name, j) => {
    for (const [key, part] of groups) {
      if (part.every(r => !r.children[j] || !r.children[j].textContent.trim())) {
        out.push(key ? {table: title, column: name, players: key} : {table: title, column: name});
      }
    }
  });
}
return out;
"""


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


BROKEN_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
table{{width:9rem}} th,td{{{wrap}}}</style></head><body><h3>Narrow</h3>
<table><thead><tr><th>players</th><th>inconclusive</th><th>empty</th><th>seat 2</th></tr></thead>
<tbody><tr><td>2</td><td>out of band</td><td></td><td></td></tr>
<tr><td>3</td><td>in band</td><td></td><td>1.5</td></tr></tbody></table></body></html>"""


@pytest.mark.parametrize(("wrap", "broken"), [("overflow-wrap:anywhere", True),
                                              ("overflow-wrap:break-word", False)],
                         ids=["anywhere", "break-word"])
def test_the_checker_finds_a_header_broken_mid_word_and_an_empty_column(driver, tmp_path, wrap, broken):
    page = tmp_path / "narrow.html"
    page.write_text(BROKEN_PAGE.format(wrap=wrap))
    show(driver, page, PRINT_WIDTH, media="print")
    words = driver.execute_script(BROKEN_WORDS_JS)
    assert bool(words) == broken, words
    if broken:
        assert any(w["cell"] == "th" for w in words), words
    assert driver.execute_script(EMPTY_COLUMNS_JS) == [
        {"table": "Narrow", "column": "empty", "players": "2"},
        {"table": "Narrow", "column": "empty", "players": "3"},
        {"table": "Narrow", "column": "seat 2", "players": "2"}]  # empty at 2 players alone


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
    """At most the page budget, and the front sheet alone on page 1: the findings open page 2."""
    name, page = report
    limit = REPORTS[name][2]
    pdf = pdf_of(driver, page)
    pages = len(pdf.pages)
    print(f"\n{name} report printed to A4: {pages} pages (at most {limit})")
    assert pages <= limit, f"{name} report prints to {pages} A4 pages; at most {limit}"
    # the PDF's text has ligatures ("ﬁ"): compared in compatibility form
    first, second = (unicodedata.normalize("NFKC", pdf.pages[i].extract_text()) for i in (0, 1))
    assert "The verdict at each player count" in first and "What to change first" in first, first
    assert second.lstrip().startswith("Findings"), second[:200]


def test_no_table_word_broken_and_no_empty_column_in_print(driver, report):
    """Issue 70: printed, no header or cell breaks a word over two lines ("playe rs",
    "incon clusiv e") and no shown table has a column empty in every row, or in every row of one
    player count (the 2-player rows of the seat-gap table carried three)."""
    name, page = report
    show(driver, page, PRINT_WIDTH, media="print")
    words = driver.execute_script(BROKEN_WORDS_JS)
    empty = driver.execute_script(EMPTY_COLUMNS_JS)
    print(f"\n{name} report in print: {len(words)} broken word(s), {len(empty)} empty column(s)")
    assert not words, f"{name} report: words broken over two lines in print: {words[:10]}"
    assert not empty, f"{name} report: empty columns in print: {empty}"


def test_summary_is_the_first_section(driver, report):
    name, page = report
    show(driver, page, SCREEN_WIDTH)
    first = driver.execute_script(
        "const h = document.querySelector('h2'); return h && [h.id, h.textContent.trim()];")
    assert first is not None, f"{name} report has no <h2>"
    assert first[0] == "summary", (
        f"{name} report: the first section is <h2 id={first[0]!r}> {first[1]!r}, not the summary "
        "(<h2 id=\"summary\">)")
