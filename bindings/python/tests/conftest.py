"""Shared helpers: the repository's fixtures, the shared truth of every suite."""

import json
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

REPOSITORY = Path(__file__).resolve().parents[3]
FIXTURES = REPOSITORY / "Tests" / "Fixtures"


class Fixture(NamedTuple):
    name: str
    input: bytes
    rules: bytes
    expected: Optional[bytes]
    error: Optional[Dict[str, Any]]
    pretty: bool
    allow_duplicate_keys: bool
    extra_flags: int

    @property
    def flags(self) -> int:
        return (1 if self.pretty else 0) | (2 if self.allow_duplicate_keys else 0) | self.extra_flags


def load_fixtures() -> List[Fixture]:
    fixtures = []
    for folder in sorted(path for path in FIXTURES.iterdir() if path.is_dir()):
        options_path = folder / "options.json"
        options = json.loads(options_path.read_text()) if options_path.exists() else {}
        expected_path = folder / "expected.json"
        error_path = folder / "error.json"
        fixtures.append(
            Fixture(
                name=folder.name,
                input=(folder / "input.json").read_bytes(),
                rules=(folder / "rules.json").read_bytes(),
                expected=expected_path.read_bytes() if expected_path.exists() else None,
                error=json.loads(error_path.read_text(encoding="utf-8")) if error_path.exists() else None,
                pretty=bool(options.get("pretty")),
                allow_duplicate_keys=bool(options.get("allowDuplicateKeys")),
                extra_flags=int(options.get("flags", 0)),
            )
        )
    return fixtures


def same_or_truncated(reported: str, expected: str) -> bool:
    """The C API holds paths and messages in 512-byte fields: longer ones come back cut, ending '...'."""
    if reported == expected:
        return True
    cut = reported.encode("utf-8")
    return len(expected.encode("utf-8")) > 511 and len(cut) <= 511 and reported.endswith("...") and expected.startswith(reported[:-3])
