"""Where the project and the tests' data are, and a free port: for unit and pipeline tests."""

from __future__ import annotations

import contextlib
import random
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


EPHEMERAL_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"
LOWEST_PORT = 20000
# Not the `random` module's generator: a test that seeds it would give two sessions one sequence.
PICK = random.SystemRandom()


def free_port() -> int:
    """A free loopback port below the kernel's ephemeral range. A server binds its port
    seconds after it is chosen (a JVM starts first); a port of that range may meanwhile be
    taken as the local end of any process's outgoing connection, and the server fails."""
    ephemeral_low = 32768
    with contextlib.suppress(OSError, ValueError):
        ephemeral_low = int(Path(EPHEMERAL_RANGE).read_text().split()[0])
    if ephemeral_low > LOWEST_PORT + 1000:
        for _ in range(200):
            port = PICK.randrange(LOWEST_PORT, ephemeral_low)
            with socket.socket() as probe, contextlib.suppress(OSError):
                probe.bind(("127.0.0.1", port))
                return port
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
