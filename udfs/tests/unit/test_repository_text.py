"""The repository reads as a design, not as its builders' working log.

Measured figures live in udfs/benchmarks/README.md; how the project got here lives in git's
history. A stop, session or issue number, a diary of hours or of CI runs in a tracked file is
a note that belongs in a commit message or an issue, so this test names the file and line.
"""

from __future__ import annotations

import re
import subprocess

from support.project import PROJECT_ROOT

LAB_LOG = re.compile(
    r"\b(stop|session|issue|task)s? #?\d+\b"
    r"|\bHISTORY\.md\b"
    r"|\b(slow|fast|quiet|busy)(er)? hour\b"
    r"|\bCI minutes\b|\blandings?' CI\b",
    re.IGNORECASE,
)
# Vendor samples are other projects' text, kept byte for byte.
DATA = ("seeds/samples/", "udfs/tests/public_samples/", "udfs/tests/fixtures/")


def tracked_text_files() -> list[str]:
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT_ROOT, capture_output=True, check=True
    )
    return [
        name for name in listing.stdout.decode().split("\0") if name and not name.startswith(DATA)
    ]


def test_no_lab_log_in_tracked_files() -> None:
    found = []
    for name in tracked_text_files():
        path = PROJECT_ROOT / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if LAB_LOG.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert found == [], "working notes in the repository:\n" + "\n".join(found)


def test_the_pattern_catches_what_it_is_for() -> None:
    # Joined at run time, so that this file does not hold what it looks for.
    notes = [
        " ".join(words)
        for words in (
            ("as in stop", "93"),
            ("see issue", "10"),
            ("Session", "4's line"),
            ("a slow", "hour"),
            ("the CI", "minutes"),
        )
    ]
    for note in [*notes, ".".join(("HISTORY", "md"))]:
        assert LAB_LOG.search(note), note
    for prose in ("a stop signal", "the issue tracker", "a session's settings", "per hour"):
        assert not LAB_LOG.search(prose), prose


def test_the_readme_reads_in_five_minutes() -> None:
    """At most 200 lines, the benchmarks at most 15: the rest is in the linked docs."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    benchmarks = readme[readme.index("## Benchmarks") :]
    assert len(readme) <= 200
    assert len(benchmarks) <= 15
