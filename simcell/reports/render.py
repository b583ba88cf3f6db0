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


@dataclass
class Table:
    name: str  # file stem of the CSV (unique in the report)
    title: str
    data: pd.DataFrame  # the numbers, written as CSV
    display: pd.DataFrame | None = None  # the formatted table for Markdown and HTML
    note: str = ""


@dataclass
class Figure:
    name: str  # file stem of the PNG
    title: str
    fig: object  # a matplotlib Figure, or its PNG once rendered (Section.rendered)
    caption: str = ""


@dataclass
class Section:
    key: str
    title: str
    text: list[str] = field(default_factory=list)  # paragraphs (Markdown: **bold**, `code`)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)

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


def _inline_html(text: str) -> str:
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:70rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem;display:block;overflow-x:auto}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
figure{margin:1rem 0}img{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#555}
code{background:#f3f3f3;padding:0 .2rem}.note{font-size:.85rem;color:#555}
nav ul{columns:2;font-size:.9rem}
"""


def write_report(report: Report, out: Path) -> list[Path]:
    """Write report.md, report.html, figures/*.png and tables/*.csv under `out`."""
    written: list[Path] = []
    md: list[str] = [f"# {report.title}", ""]
    body: list[str] = [f"<h1>{html.escape(report.title)}</h1>", "<nav><ul>"]
    body += [f'<li><a href="#{s.key}">{html.escape(s.title)}</a></li>' for s in report.sections]
    body.append("</ul></nav>")
    for s in report.sections:
        md += [f"## {s.title}", ""]
        body.append(f'<h2 id="{s.key}">{html.escape(s.title)}</h2>')
        for p in s.text:
            md += [p, ""]
            body.append(f"<p>{_inline_html(p)}</p>")
        for t in s.tables:
            path = out / "tables" / f"{t.name}.csv"
            write_atomic(path, t.data.to_csv(index=False, float_format="%.10g", lineterminator="\n").encode())
            written.append(path)
            shown = t.display if t.display is not None else t.data
            md += [f"### {t.title}", "", _md_table(shown), ""]
            body.append(f"<h3>{html.escape(t.title)}</h3>")
            body.append(shown.to_html(index=False, border=0, escape=True))
            if t.note:
                md += [f"*{t.note}*", ""]
                body.append(f'<p class="note">{_inline_html(t.note)}</p>')
            md += [f"(table: `tables/{t.name}.csv`)", ""]
        for f in s.figures:
            data = png_bytes(f.fig)
            path = out / "figures" / f"{f.name}.png"
            write_atomic(path, data)
            written.append(path)
            md += [f"![{f.title}](figures/{f.name}.png)", ""]
            if f.caption:
                md += [f"*{f.caption}*", ""]
            b64 = base64.b64encode(data).decode("ascii")
            body.append(f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{b64}">'
                        f"<figcaption>{_inline_html(f.caption)}</figcaption></figure>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(report.title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    for name, text in (("report.md", "\n".join(md)), ("report.html", page)):
        write_atomic(out / name, text.encode("utf-8"))
        written.append(out / name)
    return written
