"""Small HTML building blocks for the report: escaping, tables, sections, the page shell.

Every value that came from a file goes through `esc`, so a kernel name or message cannot inject
markup. The page has no external resources: styles are inline and charts are inline SVG.
"""

from __future__ import annotations

import html
from typing import Iterable, List, Optional, Sequence

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 18px 32px; }
header h1 { margin: 0 0 6px 0; font-size: 22px; }
header .sub { color: #c7ccd6; font-size: 14px; }
nav { background: #fff; border-bottom: 1px solid #dde1e7; padding: 8px 32px; position: sticky; top: 0; z-index: 1; }
nav a { margin-right: 14px; color: #2f5fb3; text-decoration: none; font-size: 14px; }
main { padding: 8px 32px 40px 32px; max-width: 1400px; }
section { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 12px 20px; margin: 16px 0; }
h2 { font-size: 18px; margin: 4px 0 12px 0; }
h3 { font-size: 15px; margin: 14px 0 8px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px 0; }
th, td { border-bottom: 1px solid #e6e9ee; padding: 4px 10px; text-align: left; }
th { background: #f0f2f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; }
.card { border: 1px solid #dde1e7; border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card .value { font-size: 20px; font-weight: 600; }
.card .label { font-size: 12px; color: #5b6475; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 4px; font-weight: 700; margin-right: 8px; }
.PASSED { background: #2e8b57; } .FAILED, .FAULT, .DIVERGED { background: #c0392b; } .INTERRUPTED { background: #b9770e; }
.note { color: #5b6475; font-style: italic; }
.warn { background: #fff4e0; border: 1px solid #f0c36d; padding: 6px 10px; border-radius: 4px; }
figure.chart { margin: 8px 0; }
figure.chart svg { max-width: 100%; height: auto; }
pre { background: #f0f2f5; padding: 10px; overflow-x: auto; font-size: 12px; }
details summary { cursor: pointer; font-weight: 600; margin: 6px 0; }
"""


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def number(value, digits: int = 0) -> str:
    """Thousands separators for counts, fixed decimals otherwise; '-' for missing values."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, int) or (digits == 0 and float(value) == int(value)):
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def table(headers: Sequence[str], rows: Iterable[Sequence], numeric: Optional[Sequence[int]] = None,
          table_id: Optional[str] = None) -> str:
    numeric = set(numeric or [])
    identifier = f' id="{esc(table_id)}"' if table_id else ""
    parts = [f"<table{identifier}><thead><tr>"]
    parts += [f"<th>{esc(h)}</th>" for h in headers]
    parts.append("</tr></thead><tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(
            f'<td class="num">{esc(cell)}</td>' if index in numeric else f"<td>{esc(cell)}</td>"
            for index, cell in enumerate(row)) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def cards(items: Sequence[tuple]) -> str:
    return '<div class="cards">' + "".join(
        f'<div class="card"><div class="value">{esc(value)}</div><div class="label">{esc(label)}</div></div>'
        for label, value in items) + "</div>"


def chart(svg: str, caption: str = "") -> str:
    caption_html = f"<figcaption class='note'>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure class="chart">{svg}{caption_html}</figure>'


def note(text: str) -> str:
    return f'<p class="note">{esc(text)}</p>'


def section(section_id: str, title: str, body: str) -> str:
    return f'<section id="{esc(section_id)}"><h2>{esc(title)}</h2>{body}</section>'


def page(title: str, subtitle_html: str, sections: List[tuple]) -> str:
    """sections: (id, title, body html)."""
    nav = "".join(f'<a href="#{esc(sid)}">{esc(stitle)}</a>' for sid, stitle, _ in sections)
    body = "".join(section(sid, stitle, content) for sid, stitle, content in sections)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{esc(title)}</h1><div class=\"sub\">{subtitle_html}</div></header>"
            f"<nav>{nav}</nav><main>{body}</main></body></html>\n")
