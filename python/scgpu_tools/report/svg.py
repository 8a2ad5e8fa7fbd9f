"""Figures to inline SVG (for the self-contained page) and, optionally, to PNG files.

Text stays text in the SVG (svg.fonttype 'none'): the page is smaller, text is selectable, and
several charts on one page do not each carry glyph definitions with the same ids.
"""

from __future__ import annotations

import io
import os
from typing import Optional

import matplotlib

from ..plots.style import plt


def figure_to_svg(fig, salt: str) -> str:
    """The <svg> element of `fig` (no XML prolog or DOCTYPE, which HTML does not want)."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def figure_to_png(fig, directory: Optional[str], name: str) -> Optional[str]:
    if not directory:
        return None
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.png")
    fig.savefig(path, format="png", bbox_inches="tight")
    return path


def close(fig) -> None:
    plt.close(fig)
