"""Work limits: what one reshape may cost (docs/limits.md in the repository)."""

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Limits:
    """The engine's work limits, given to `Rules`. A field left None takes its default.

    Going beyond a limit raises `LimitExceeded` (`InvalidRules` for the rules document), never
    crashes the interpreter. The defaults marked "grows" grow with the input.

    Attributes:
        max_depth: nesting of the input, the output and the rules document (default 1000).
        max_rules_bytes: size of the rules document (default 1 MiB).
        max_selected: values the path of one rule may visit, counting a value once per way the
            path reaches it (default 4 million or 1 per input byte: grows).
        max_output_bytes: size of the output (default 64 MiB or 16 per input byte: grows).
        max_work: steps of work per document: values visited, renamed, moved, copied or created
            (default 100 million or 100 per input byte: grows).
    """

    max_depth: Optional[int] = None
    max_rules_bytes: Optional[int] = None
    max_selected: Optional[int] = None
    max_output_bytes: Optional[int] = None
    max_work: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("max_depth", "max_rules_bytes", "max_selected", "max_output_bytes", "max_work"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"Limits.{name} must be a positive int or None, not {value!r}")
