"""What each rule did on an input (``reshape explain``), as the library says it."""

import json
from typing import Any, Dict, List, Optional


class Explanation:
    """What each rule of a list did on one input, from `Rules.explain`.

    ``rules`` holds one dict per rule that ran: ``rule``, ``op``, ``summary``, ``selected``,
    ``changed``, ``changes``, ``perRecord``, ``reason``, ``seconds``, ``share`` and ``examples``
    (each ``change``, ``path``, ``input``, ``before``, ``after``). ``failure`` is the failing
    rule's ``code``, ``message``, ``rule``, ``op`` and ``path``, or None; ``not_run`` names the
    rules after it. ``str()`` is the text ``reshape explain`` prints.
    """

    def __init__(self, text: bytes) -> None:
        data: Dict[str, Any] = json.loads(text)
        self.rules: List[Dict[str, Any]] = data["rules"]
        self.failure: Optional[Dict[str, Any]] = data["failure"]
        self.not_run: List[str] = data["notRun"]
        self._description: str = data["description"]
        self._json = text

    def __str__(self) -> str:
        return self._description

    def __repr__(self) -> str:
        return f"<reshape.Explanation of {len(self.rules)} rules{', failed' if self.failure else ''}>"
