"""Where the project and the tests' data are, and a free port: for unit and pipeline tests."""

from __future__ import annotations

import socket
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
PROJECT_ROOT = TESTS.parents[1]
SAMPLES = PROJECT_ROOT / "seeds" / "samples"
FIXTURES = TESTS / "fixtures"
# <source>/<format>/ folders loaded with their source named (README.md there).
NAMED_SOURCES = TESTS / "named_sources"
# Each named-source folder also loaded under these names: the same file from another source.
SOURCE_COPIES = {"mysql-east": "mysql-copy"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
