"""Compiled rules and the functions that apply them."""

import json
import math
import os
import threading
import weakref
from decimal import Decimal
from pathlib import Path
from typing import Any, List, Mapping, Optional, Union

from . import _native
from ._errors import BY_STATUS, InternalError, InvalidRules, ReshapeError
from ._limits import Limits

#: What `Rules` accepts: a list of rule dicts, a dict with "rules", JSON text (str or bytes), or a
#: path to a .json file.
RulesSpec = Union[List[Mapping[str, Any]], Mapping[str, Any], str, bytes, "os.PathLike[str]"]
#: What `apply` accepts: UTF-8 JSON text.
Data = Union[bytes, bytearray, memoryview, str]


def _error(status: int, error: "_native.Error") -> ReshapeError:
    kind = BY_STATUS.get(status, InternalError)
    return kind(
        error.message.decode("utf-8", "replace"),
        status=status,
        rule=error.rule,
        path=error.path.decode("utf-8", "replace"),
        line=error.line,
        column=error.column,
        position=error.position,
    )


def _spec_bytes(spec: RulesSpec) -> bytes:
    if isinstance(spec, (bytes, bytearray, memoryview)):
        return bytes(spec)
    if isinstance(spec, str):
        if spec.lstrip()[:1] in ("[", "{"):
            return spec.encode("utf-8", "surrogatepass")
        return Path(spec).read_bytes()
    if isinstance(spec, os.PathLike):
        return Path(spec).read_bytes()
    if isinstance(spec, (list, tuple, Mapping)):
        try:
            return json.dumps(spec, allow_nan=False, ensure_ascii=False).encode("utf-8", "surrogatepass")
        except (TypeError, ValueError) as error:
            raise InvalidRules(f"invalid_rules: the rules cannot be written as JSON: {error}", status=2) from None
    raise TypeError(f"rules must be a list, a dict, JSON text, bytes or a path, not {type(spec).__name__}")


def _data_bytes(data: Data) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        # Lone surrogates pass through as bytes the engine rejects, with a position.
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"data must be bytes, bytearray, memoryview or str, not {type(data).__name__}")


def _parse_int(text: str) -> Union[int, Decimal]:
    """An int, except ``-0``: the engine keeps its sign, and only a Decimal can."""
    return Decimal(text) if text == "-0" else int(text)


def _parse_float(text: str) -> Union[float, Decimal]:
    """A float, unless a float would change the number: then a Decimal.

    The engine writes a real as the shortest text of its double whenever that is the same number,
    and keeps the input's text otherwise (overflow, underflow, more digits than a double holds); so
    a float is exact here precisely when its repr reads as the same decimal as the text.
    """
    value = float(text)
    if math.isfinite(value) and Decimal(repr(value)) == Decimal(text):
        return value
    return Decimal(text)


def _native_limits(limits: Optional[Limits]) -> "Optional[_native.Limits]":
    if limits is None:
        return None
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a reshape.Limits, not {type(limits).__name__}")
    return _native.make_limits(
        limits.max_depth, limits.max_rules_bytes, limits.max_selected, limits.max_output_bytes, limits.max_work
    )


class Rules:
    """A compiled rules document (see docs/rules.md), reusable and safe to share between threads.

    >>> rules = Rules([{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}])
    >>> rules.apply(b'{"u1": {"name": "Ada"}}')
    b'{"objects":[{"objectId":"u1","name":"Ada"}]}'

    Use it as a context manager, or call `close()`, to free the compiled rules at once; otherwise
    they are freed when the object is collected.
    """

    def __init__(self, spec: RulesSpec, *, limits: Optional[Limits] = None) -> None:
        """Compiles a rules document.

        Args:
            spec: a list of rules, a dict ``{"rules": [...]}``, JSON text as str or bytes, or a path
                (str or os.PathLike) to a .json file. A str starting with ``[`` or ``{`` is JSON text.
            limits: the work limits for the rules document and every apply; None for the defaults.

        Raises:
            InvalidRules: the document is not valid JSON or breaks the rules contract; the message
                names the rule, the param, and a suggestion for a typo.
            OSError: a path could not be read.
        """
        status, handle, error = _native.rules_new(_spec_bytes(spec), _native_limits(limits))
        if status != 0 or handle is None:
            raise _error(status, error)
        self._handle: Optional[int] = handle
        self._lock = threading.Lock()
        self._in_use = 0
        self._closed = False
        self._finalizer = weakref.finalize(self, _native.rules_free, handle)

    def apply(self, data: Data, *, pretty: bool = False, allow_duplicate_keys: bool = False) -> bytes:
        """Reshapes a JSON document.

        Args:
            data: UTF-8 JSON text (bytes, bytearray, memoryview or str).
            pretty: indent the output with two spaces.
            allow_duplicate_keys: let the last of duplicate member names win instead of failing.

        Returns:
            The reshaped document as UTF-8 JSON text.

        Raises:
            InvalidJSON, RuleFailed, LimitExceeded: with ``rule``, ``path``, ``line``, ``column``,
                ``position`` set where they apply.
            ValueError: the rules were closed.
        """
        flags = (_native.RESHAPE_PRETTY if pretty else 0) | (_native.RESHAPE_ALLOW_DUPLICATE_KEYS if allow_duplicate_keys else 0)
        return self._apply(_data_bytes(data), flags)

    def apply_loads(self, data: Data, *, allow_duplicate_keys: bool = False) -> Any:
        """Reshapes a JSON document and returns it as Python objects.

        Objects become dicts in member order; integers of any size become ints; a real that a float
        cannot hold exactly (``1e400``, ``0.1000000000000000000001``) and ``-0`` become Decimals
        rather than changing their value.
        """
        output = self.apply(data, allow_duplicate_keys=allow_duplicate_keys)
        return json.loads(output, parse_float=_parse_float, parse_int=_parse_int)

    def _apply(self, data: bytes, flags: int) -> bytes:
        handle = self._acquire()
        try:
            status, output, error = _native.apply(handle, data, flags)
        finally:
            self._release()
        if status != 0 or output is None:
            raise _error(status, error)
        return output

    def close(self) -> None:
        """Frees the compiled rules. Calls still running finish first; later calls raise ValueError."""
        with self._lock:
            self._closed = True
            if self._in_use == 0:
                self._finalizer()

    def __enter__(self) -> "Rules":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _acquire(self) -> int:
        with self._lock:
            if self._closed or self._handle is None:
                raise ValueError("these rules are closed")
            self._in_use += 1
            return self._handle

    def _release(self) -> None:
        with self._lock:
            self._in_use -= 1
            if self._closed and self._in_use == 0:
                self._finalizer()


def apply(spec: RulesSpec, data: Data, *, pretty: bool = False, allow_duplicate_keys: bool = False) -> bytes:
    """Compiles `spec` and reshapes `data` once. Keep a `Rules` to reshape many documents.

    See `Rules` and `Rules.apply` for the arguments and errors.
    """
    with Rules(spec) as rules:
        return rules.apply(data, pretty=pretty, allow_duplicate_keys=allow_duplicate_keys)
