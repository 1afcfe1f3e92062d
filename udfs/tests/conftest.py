"""The pytest hooks of every test: the fuzzing options, and the `spark` mark given to each
test that needs the server, so that `pytest -m "not spark"` is the fast tier.

Fixtures of the pipeline tests are in pipeline/conftest.py; helpers are in support/.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cdc-lake fuzzing (pipeline/test_fuzzing.py)")
    group.addoption(
        "--fuzz-messages",
        type=int,
        default=1200,
        help="hostile messages, spread over every format, the fuzz build stages",
    )
    group.addoption("--fuzz-seed", type=int, default=1, help="seed of the hostile messages")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `spark` every test that needs a server (the session's, or one of its own beside
    a Kafka broker), however indirectly: `-m "not spark"` is then the quick subset, whatever
    a module declares."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "spark_server" in fixtures or "kafka_broker" in fixtures:
            item.add_marker(pytest.mark.spark)
