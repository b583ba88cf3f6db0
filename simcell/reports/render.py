"""A report's parts and how they are written: `report.md` with PNG figures beside it, one
self-contained `report.html` (figures embedded, no external reference), and every table as CSV.
Output is byte-identical for the same run directory: no timings or dates in the body, figures
saved without creation metadata."""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from simcell.files import write_atomic
from simcell.vocabulary import TABLES_FOLDER


@dataclass
class Table:
    name: str  # file stem of the CSV (unique in the report)
    title: str
    data: pd.DataFrame  # the numbers, written as CSV
    display: pd.DataFrame | None = None  # the formatted table for Markdown and HTML
    note: str = ""
    collapsed: bool = False  # HTML: folded under its title (full tables for reference; not printed)
    csv_only: bool = False  # written as CSV, not shown (the data behind a figure)
    # the rows a reader rarely needs (in band on every rung, say): shown folded under the table on
    # screen, left out of print; the CSV holds every row either way
    rest: pd.DataFrame | None = None
    rest_title: str = "the other rows"


@dataclass
class Figure:
    name: str  # file stem of the PNG
    title: str
    fig: object  # a matplotlib Figure, or its PNG once rendered (Section.rendered)
    caption: str = ""
    printed: bool = True  # False: on screen and in figures/ only (one per player count: the heat map prints)


@dataclass
class Section:
    key: str
    title: str
    text: list[str] = field(default_factory=list)  # paragraphs (Markdown: **bold**, `code`)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    figures_first: bool = False  # the figures before the tables (a comparison's forest plot)
    page: bool = False  # printed on a page of its own (the front sheet)
    text_after: list[str] = field(default_factory=list)  # paragraphs after the figures

    def rendered(self) -> Section:
        """The section with every figure as PNG bytes (picklable, and closed in matplotlib)."""
        for f in self.figures:
            f.fig = png_bytes(f.fig)
        return self


@dataclass
class Report:
    title: str
    sections: list[Section]


def png_bytes(fig) -> bytes:
    if isinstance(fig, bytes):  # rendered already
        return fig
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _md_table(df: pd.DataFrame) -> str:
    cols = [str(c) for c in df.columns]
    rows = [[str(v) for v in r] for r in df.itertuples(index=False)]
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


_NUMBER = re.compile(r"^[-+−]?\d|^n/a$|^$")


def _html_table(df: pd.DataFrame) -> str:
    """A table with numeric columns right-aligned and text columns left-aligned."""
    cells = [[str(v) for v in row] for row in df.itertuples(index=False)]
    numeric = [all(_NUMBER.match(r[j]) for r in cells) for j in range(df.shape[1])]
    align = ['' if n else ' class="t"' for n in numeric]
    head = "".join(f"<th{a}>{html.escape(str(c))}</th>" for c, a in zip(df.columns, align))
    rows = "".join("<tr>" + "".join(f"<td{a}>{html.escape(v)}</td>" for v, a in zip(r, align)) + "</tr>"
                   for r in cells)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


_ANCHOR = re.compile(r"^\{#([\w-]+)\} ")  # a paragraph that opens with {#id} is a link target


def _anchored(text: str) -> tuple[str, str]:
    """(id or "", the paragraph without its {#id} opening)."""
    m = _ANCHOR.match(text)
    return (m.group(1), text[m.end():]) if m else ("", text)


def _inline_html(text: str) -> str:
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', t)  # links within the page
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


# Tables wrap inside their cells between words, never inside one ("playe rs" reads as two words),
# rather than scroll; print drops the navigation and folded
# tables, and keeps figures and headings with what follows them.
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:62rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem;max-width:100%}
th,td{border:1px solid #ddd;padding:.2rem .4rem;text-align:right;vertical-align:top;overflow-wrap:break-word;
hyphens:manual}
th{background:#f3f3f3;font-weight:600}.t{text-align:left}
figure{margin:1rem 0;break-inside:avoid}img{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#555}
code{background:#f3f3f3;padding:0 .2rem;overflow-wrap:anywhere}.note{font-size:.85rem;color:#555}
details{margin:.5rem 0 1rem}summary{cursor:pointer;font-weight:600}
nav ul{columns:2;font-size:.9rem}
ul.summary li{margin:.35rem 0}ol.summary li{margin:.1rem 0}
@page{size:A4;margin:12mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:9.5pt}nav,details,.screen{display:none}
h1{font-size:1.25rem}.page{break-after:page;font-size:8.8pt}.page h2{margin-top:.4rem}
.page h3{margin:.5rem 0 .2rem}.page figure{margin:.2rem 0}.page img{width:100%;max-height:none}
.page p,.page li{margin:.2rem 0}
table{font-size:7.5pt}h2{break-after:avoid;margin-top:1.2rem}h3{break-after:avoid}
img{max-height:9.5cm;object-fit:contain}}
"""


def _without_constant_field(shown: pd.DataFrame) -> pd.DataFrame:
    """A shown table without its field column when every row has the same field (a run of one
    field names it once, in its header): a column that says nothing costs print width."""
    if "field" in shown.columns and len(shown) and shown["field"].nunique() == 1:
        return shown.drop(columns=["field"])
    return shown


def _table(t: Table, out: Path, md: list[str], body: list[str]) -> Path:
    """Write a table's CSV and add it to the Markdown and HTML bodies; returns the CSV path."""
    path = out / TABLES_FOLDER / f"{t.name}.csv"
    write_atomic(path, t.data.to_csv(index=False, float_format="%.10g", lineterminator="\n").encode())
    if t.csv_only:
        return path
    shown = _without_constant_field(t.display if t.display is not None else t.data)
    md += [f"### {t.title}", "", _md_table(shown), ""]
    table = _html_table(shown)
    note = f'<p class="note">{_inline_html(t.note)}</p>' if t.note else ""
    if t.collapsed:
        body.append(f"<details><summary>{html.escape(t.title)} ({len(shown)} rows; "
                    f"<code>tables/{t.name}.csv</code>)</summary>{table}{note}</details>")
    else:
        body += [f"<h3>{html.escape(t.title)}</h3>", table] + ([note] if note else [])
    if t.rest is not None and len(t.rest):
        rest = _without_constant_field(t.rest) if "field" not in shown.columns else t.rest
        body.append(f'<details class="rest"><summary>{html.escape(t.rest_title)} ({len(t.rest)} rows; '
                    f"<code>tables/{t.name}.csv</code>)</summary>{_html_table(rest)}</details>")
        md += [f"{t.rest_title[:1].upper()}{t.rest_title[1:]} ({len(t.rest)} rows):", "", _md_table(rest), ""]
    if t.note:
        md += [f"*{t.note}*", ""]
    md += [f"(table: `tables/{t.name}.csv`)", ""]
    return path


def _paragraphs(key: str, text: list[str], md: list[str], body: list[str]) -> None:
    """Add paragraphs to the Markdown and HTML bodies: a run of "- " paragraphs is one list,
    of "1. " one numbered list; a paragraph or item opening with {#id} carries that id."""
    items: list[str] = []
    kind = "ul"
    for p in text + [""]:
        numbered = re.match(r"\d+\. ", p)
        if p.startswith("- ") or numbered:
            new_kind = "ol" if numbered else "ul"
            if items and new_kind != kind:
                body.append(f'<{kind} class="{key}">' + "".join(items) + f"</{kind}>")
                items = []
            kind = new_kind
            anchor, item = _anchored(p[numbered.end() if numbered else 2:])
            attr = f' id="{anchor}"' if anchor else ""
            items.append(f"<li{attr}>{_inline_html(item)}</li>")
            md.append(p[:numbered.end() if numbered else 2] + (f'<a id="{anchor}"></a>' if anchor else "") + item)
            continue
        if items:
            body.append(f'<{kind} class="{key}">' + "".join(items) + f"</{kind}>")
            md.append("")
            items = []
        if p:
            md += [p, ""]
            body.append(f"<p>{_inline_html(p)}</p>")


def write_report(report: Report, out: Path) -> list[Path]:
    """Write report.md, report.html, figures/*.png and tables/*.csv under `out`."""
    written: list[Path] = []
    md: list[str] = [f"# {report.title}", ""]
    body: list[str] = [f"<h1>{html.escape(report.title)}</h1>", "<nav><ul>"]
    body += [f'<li><a href="#{s.key}">{html.escape(s.title)}</a></li>' for s in report.sections]
    body.append("</ul></nav>")
    for s in report.sections:
        md += [f"## {s.title}", ""]
        if s.page:
            body.append('<div class="page">')
        body.append(f'<h2 id="{s.key}">{html.escape(s.title)}</h2>')
        _paragraphs(s.key, s.text, md, body)
        # tables shown in the body, then the figures, then the full tables folded
        if not s.figures_first:
            for t in (t for t in s.tables if not t.collapsed):
                written.append(_table(t, out, md, body))
        for f in s.figures:
            data = png_bytes(f.fig)
            path = out / "figures" / f"{f.name}.png"
            write_atomic(path, data)
            written.append(path)
            md += [f"![{f.title}](figures/{f.name}.png)", ""]
            if f.caption:
                md += [f"*{f.caption}*", ""]
            b64 = base64.b64encode(data).decode("ascii")
            screen = "" if f.printed else ' class="screen"'
            body.append(f'<figure{screen}><img alt="{html.escape(f.title)}" src="data:image/png;base64,{b64}">'
                        f"<figcaption>{_inline_html(f.caption)}</figcaption></figure>")
        after = [t for t in s.tables if s.figures_first and not t.collapsed]
        for t in after + [t for t in s.tables if t.collapsed]:
            written.append(_table(t, out, md, body))
        _paragraphs(s.key, s.text_after, md, body)
        if s.page:
            body.append("</div>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(report.title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    for name, text in (("report.md", "\n".join(md)), ("report.html", page)):
        write_atomic(out / name, text.encode("utf-8"))
        written.append(out / name)
    return written
