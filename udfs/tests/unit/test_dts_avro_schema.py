"""The shipped DTS Avro schema files are exactly the upstream files SOURCES.md names.

The decoder is only as right as these files; an edit (even a reformat) must show up here, and
SOURCES.md must list every file the folder holds.
"""

from __future__ import annotations

import hashlib
import re

from cdc_lake.dts_avro import SCHEMA_DIR

SHA256_LINE = re.compile(r"^- `(?P<name>[^`]+\.avsc)` `(?P<sha256>[0-9a-f]{64})`$", re.MULTILINE)


def test_schema_files_match_the_sha256_in_sources_md() -> None:
    listed = {
        match["name"]: match["sha256"]
        for match in SHA256_LINE.finditer((SCHEMA_DIR / "SOURCES.md").read_text(encoding="utf-8"))
    }
    actual = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in SCHEMA_DIR.glob("*.avsc")
    }
    assert len(listed) == 14
    assert actual == listed
