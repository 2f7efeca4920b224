"""The JSON Schema of the doctor's report (``protocol/doctor/doctor-report.schema.json``).

Derived from ``bridge.doctor.report.Report``: ``scripts/gen-schema`` writes it, and with
``--check`` fails when the checked-in file differs (as for ``protocol/schema/``). A report the
doctor writes (``--json`` or the file) validates against it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bridge.doctor.report import Report
from bridge.wire.schema import render

SCHEMA_FILE = (
    Path(__file__).resolve().parents[2] / "protocol" / "doctor" / "doctor-report.schema.json"
)


def text() -> str:
    return render("doctor-report", Report)


def main(argv: list[str]) -> int:
    wanted = text()
    if "--check" in argv:
        if not SCHEMA_FILE.exists() or SCHEMA_FILE.read_text(encoding="utf-8") != wanted:
            print(
                "protocol/doctor/doctor-report.schema.json is out of date (run scripts/gen-schema)",
                file=sys.stderr,
            )
            return 1
        print("protocol/doctor: the report schema is up to date")
        return 0
    SCHEMA_FILE.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_FILE.write_text(wanted, encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
