"""Compiled rules and the functions that apply them."""

import io
import json
import math
import mmap
import os
import re
import stat
import sys
import threading
import weakref
from decimal import Decimal
from pathlib import Path
from typing import (Any, BinaryIO, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar,
                    Union)

from . import _native
from ._buffers import Data, borrowed
from ._calls import Call
from ._explain import Explanation
from ._source import ORIGINS, Source
from ._errors import BY_STATUS, InternalError, InvalidJSON, InvalidRules, IOFailed, ReshapeError, io_failed_class
from ._limits import Limits

# Real types, not strings: help() and typing.get_type_hints() show them as they are written.
if sys.version_info >= (3, 9):
    _StrPathLike = os.PathLike[str]
    _BytesPathLike = os.PathLike[bytes]
else:  # pragma: no cover - Python 3.8's os.PathLike takes no parameters at run time
    _StrPathLike = os.PathLike
    _BytesPathLike = os.PathLike

#: What `Rules` accepts: a sequence of rule mappings, a mapping with "rules", JSON text (str or
#: bytes), or a path-like object naming a .json file (a str is JSON text, never a path).
RulesSpec = Union[Sequence[Mapping[str, Any]], Mapping[str, Any], str, bytes, _StrPathLike]
#: A path to a file: str, bytes or os.PathLike.
PathArgument = Union[str, bytes, _StrPathLike, _BytesPathLike]
#: What `Rules.apply_file` reads and writes: a path, or a binary file object (open in binary mode,
#: or any object with binary ``read`` / ``write``, like io.BytesIO).
FileArgument = Union[PathArgument, BinaryIO]
#: What `Rules.apply_file` calls with ``(bytes_done, bytes_total)``; its return value is ignored.
ProgressCallback = Callable[[int, int], object]
#: Called with the error of each line skipped (see `Rules.apply_file`'s ``on_skip``).
SkipCallback = Callable[[ReshapeError], object]

T = TypeVar("T")

_MAX_JOBS = 2**32 - 1  # jobs is a C unsigned int
#: apply_file without progress calls the library on the caller's thread, without a callback, when
#: the input is a regular file smaller than this: a call that Ctrl-C need not interrupt.
_QUICK_BELOW = 1 << 20
#: apply() takes the output in pieces (reshape_apply_cb) from inputs of this size on, so that a
#: large output is held once; a smaller input's output comes in one buffer (reshape_apply), held
#: twice for a moment. 64 KiB is also where the library starts to reshape a collection record by
#: record, and so to hand its output over as it is made.
_IN_PIECES_FROM = 64 << 10
#: On the main thread, from this size on: there the pieces are taken on a helper thread (see
#: _calls.py), about 150 us a call, a third of the work at 64 KiB and 3% at 1 MiB.
_IN_PIECES_ON_MAIN_FROM = 1 << 20
_COPY_CHUNK = 1 << 20


def _error(status: int, error: "_native.Error", doc: Any = "", files: "Optional[_Files]" = None) -> ReshapeError:
    """The exception for a failed call; `doc` is the input as the caller gave it, for InvalidJSON;
    `files` says what the call's files are called, for an io_error's filename and message."""
    kind = BY_STATUS.get(status, InternalError)
    message = error.message.decode("utf-8", "replace")
    where: Dict[str, Any] = dict(
        status=status,
        rule=error.rule,
        op=error.op.decode("utf-8", "replace"),
        path=error.path.decode("utf-8", "replace"),
        line=error.line,
        column=error.column,
        position=error.position,
        source=_source_of(error),
    )
    if kind is InvalidJSON:
        where.update(doc=doc, pos=_index_in(doc, error.position))
    if kind is IOFailed:
        side = error.io_file
        if files is not None:
            message = files.describe(side, message)
        return io_failed_class(error.sys_errno)(
            message, errno=error.sys_errno or None, filename=None if files is None else files.filename(side),
            io_file=_IO_SIDES.get(side, ""), **where)
    return kind(message, **where)


def _source_of(error: "_native.Error") -> Optional[Source]:
    """The error's source_* fields as a Source, or None. Renames are not carried there; the
    description is the library's, from the end of the message (`... (input: DESCRIPTION)`), which
    has it whenever the rules moved, renamed or made the value; else the value is the input's at the
    error's own path."""
    origin = ORIGINS.get(error.source_origin)
    if origin is None:
        return None
    path = error.source_path.decode("utf-8", "replace")
    message = error.message.decode("utf-8", "replace")
    start = message.rfind(" (input: ")
    if start >= 0 and message.endswith(")"):
        description = message[start + len(" (input: "):-1]
    else:
        description = f"{path}, line {error.source_line}, column {error.source_column}"
    return Source(origin, path, error.source_line, error.source_column, error.source_position, error.source_rule,
                  error.source_op.decode("utf-8", "replace"), (), description)


_IO_SIDES = {_native.RESHAPE_IO_INPUT: "input", _native.RESHAPE_IO_OUTPUT: "output"}


class _Files:
    """What a call's input and output are called, for the io_errors of that call.

    The library names a path it was given; a descriptor it names "descriptor N", which the binding
    replaces with the file's path when it knows it (a path it opened itself, a file object whose
    ``name`` is a path), or "standard input" for descriptor 0 without one.
    """

    def __init__(self) -> None:
        self._names: Dict[int, Union[str, bytes, None]] = {}
        # side: (what the library's message calls it, as a pattern; what to call it instead)
        self._descriptors: Dict[int, Tuple[str, str]] = {}

    def path(self, side: int, path: PathArgument) -> "_Files":
        """The library reads or writes this path itself."""
        self._names[side] = os.fspath(path)
        return self

    def descriptor(self, side: int, descriptor: int, file: object) -> "_Files":
        """The library reads or writes `descriptor`, of `file`: a path the binding opened, or a file object."""
        name = os.fspath(file) if isinstance(file, _PATH_TYPES) else _file_name(file)
        self._names[side] = name
        if name is not None:
            kind = "input file" if side == _native.RESHAPE_IO_INPUT else "output file"
            self._descriptors[side] = (rf"\bdescriptor {descriptor}\b", f"{kind} '{_shown_path(name)}'")
        elif side == _native.RESHAPE_IO_INPUT and descriptor == 0:
            self._descriptors[side] = (rf"\bdescriptor {descriptor}\b", "standard input")
        return self

    def reopened(self, side: int, path: str, descriptor: int, file: object) -> "_Files":
        """The library reads `file`'s `descriptor` through `path` (/proc/self/fd/N), which it opens."""
        self.descriptor(side, descriptor, file)
        shown = self._descriptors.get(side, (None, f"descriptor {descriptor}"))[1]
        self._descriptors[side] = (re.escape(f"input file '{path}'"), shown)
        return self

    def filename(self, side: int) -> Union[str, bytes, None]:
        return self._names.get(side)

    def describe(self, side: int, message: str) -> str:
        if side not in self._descriptors:
            return message
        pattern, description = self._descriptors[side]
        return re.sub(pattern, lambda _: description, message, count=1)


def _reopenable_path(file: object) -> Optional[Tuple[str, int]]:
    """For a file object reading a pipe or a character device, a path the library can open to
    read the same bytes as they come (/proc/self/fd/N), and N; None for anything else (a regular
    file, whose offset a new opening would lose, a socket, which cannot be opened by path)."""
    import stat

    descriptor = _descriptor(file)
    if descriptor is None:
        return None
    path = f"/proc/self/fd/{descriptor}"
    try:
        mode = os.fstat(descriptor).st_mode
    except OSError:
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)) or not os.path.exists(path):
        return None
    return path, descriptor


def _file_name(file: object) -> Union[str, bytes, None]:
    """A file object's ``name`` when it is a path: not a descriptor number, nor "<stdin>"."""
    name = getattr(file, "name", None)
    if isinstance(name, str) and not (name.startswith("<") and name.endswith(">")):
        return name
    if isinstance(name, bytes) and not (name.startswith(b"<") and name.endswith(b">")):
        return name
    return None


def _shown_path(path: PathArgument) -> str:
    """A path as the library's messages show it: read as UTF-8 (repaired), control characters escaped."""
    return _safe_text(os.fsencode(path).decode("utf-8", "replace"))


def _index_in(doc: Any, position: int) -> int:
    """The byte offset `position` of the UTF-8 text as an index into `doc`: characters for a str."""
    if not isinstance(doc, str):
        return position
    prefix = doc.encode("utf-8", "surrogatepass")[:position]
    return len(prefix.decode("utf-8", "replace"))


def _spec_bytes(spec: RulesSpec) -> bytes:
    if isinstance(spec, (bytes, bytearray, memoryview)):
        return bytes(spec)
    if isinstance(spec, str):
        # JSON text, always: a str is never taken for a path (Rules.from_file reads a file). A
        # leading U+FEFF becomes the UTF-8 byte order mark, which the library skips.
        return spec.encode("utf-8", "surrogatepass")
    if isinstance(spec, os.PathLike):
        return _read_rules_file(spec)
    if isinstance(spec, (Sequence, Mapping)):
        numbers = _ExactNumbers()
        try:
            text = json.dumps(spec, allow_nan=False, ensure_ascii=False, default=numbers.value)
        except (TypeError, ValueError) as error:
            raise InvalidRules(f"invalid_rules: the rules cannot be written as JSON: {error}", status=2) from None
        return numbers.written(text).encode("utf-8", "surrogatepass")
    raise TypeError(f"rules must be a list, a dict, JSON text (str or bytes) or a pathlib.Path, not {type(spec).__name__}")


_JSON_TEXT_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*[\[{]")


class _FileContents(bytes):
    """A rules document read from a file: its errors are the library's words, with no hint."""


def _rules_error(error: ReshapeError, spec: object, document: bytes) -> ReshapeError:
    """`error` for a rules document that did not compile, with a hint where the Python form given
    suggests what was meant: JSON text that is no JSON document at all (a path, most likely), or
    one rule given alone, as a dict."""
    if isinstance(error, InvalidRules) and isinstance(spec, Mapping) and "op" in spec and "rules" not in spec:
        op = spec["op"]
        quoted = json.dumps(op, ensure_ascii=False) if isinstance(op, str) and len(op) <= 40 else "..."
        hint = f"; a rules document is a list of rules: wrap one rule in a list, Rules([{{\"op\": {quoted}, ...}}])"
        return _with_message(error, _safe_text(error.message + hint))
    if (isinstance(error, InvalidRules) and isinstance(spec, (str, bytes, bytearray, memoryview))
            and not isinstance(spec, _FileContents)
            and error.line > 0 and document.strip() and not _JSON_TEXT_START.match(document)):
        shown: Union[str, bytes] = spec if isinstance(spec, str) else bytes(spec)
        path = repr(shown) if len(shown) <= 200 else "path"
        hint = f"; Rules() reads a str or bytes as JSON text: to read a file, use Rules.from_file({path})"
        return _with_message(error, error.message + hint)
    return error


def _with_message(error: ReshapeError, message: str) -> ReshapeError:
    """A copy of `error` with another message and the same fields."""
    where: Dict[str, Any] = dict(status=error.status, rule=error.rule, op=error.op, path=error.path, line=error.line,
                                 column=error.column, position=error.position)
    return type(error)(message, **where)


def _read_rules_file(path: PathArgument) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise _cannot_read(path, error, "rules file") from None


class _ExactNumbers:
    """json.dumps's `default` for a rules document: other mappings and sequences, and Decimals.

    json.dumps cannot write a number it does not know, so a Decimal (as `Rules.document` gives
    ``-0`` and the reals a float cannot hold) is first written as a placeholder string, then
    replaced by its exact text.
    """

    def __init__(self) -> None:
        import uuid  # here, not at import: few callers write Decimals

        self.tag = uuid.uuid4().hex
        self.numbers: List[str] = []

    def value(self, value: object) -> object:
        if isinstance(value, Mapping):
            return dict(value)
        if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
            return list(value)
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise ValueError(f"Out of range float values are not JSON compliant: {value}")
            self.numbers.append(str(value))
            return f"{self.tag}-{len(self.numbers) - 1}"
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    def written(self, text: str) -> str:
        for index, number in enumerate(self.numbers):
            text = text.replace(f'"{self.tag}-{index}"', number, 1)
        return text


def _parse_int(text: str) -> Union[int, Decimal]:
    """An int, except ``-0``: the engine keeps its sign, and only a Decimal can."""
    return Decimal(text) if text == "-0" else int(text)


def _integers_then(parse_float: Callable[[str], Any]) -> Callable[[str], Any]:
    """parse_int for a caller's parse_float: ints, except ``-0``, which goes to parse_float."""
    return lambda text: parse_float(text) if text == "-0" else int(text)


_BLANK_TEXT = re.compile("[ \t\r\n]*")
_BLANK_BYTES = re.compile(b"[ \t\r\n]*")


def _is_blank(item: Data) -> bool:
    """Whether an item of JSON Lines is JSON white space only (space, tab, CR, LF); read in place."""
    if isinstance(item, str):
        return _BLANK_TEXT.fullmatch(item) is not None
    if isinstance(item, (bytes, bytearray, memoryview, mmap.mmap)):
        return _BLANK_BYTES.fullmatch(item) is not None
    return False  # not data: `apply` says what it takes


def _on_line(error: ReshapeError, number: int) -> ReshapeError:
    """`error` for item `number` of an iterable of JSON Lines: the message and `line` name it.

    "invalid_json: item 3: at $['b'], line 1, column 9: ...": what follows the item is the
    error within the item, as `apply` gives it.
    """
    code, _, rest = error.message.partition(": ")
    message = f"{code}: item {number}: {rest}"
    where: Dict[str, Any] = dict(status=error.status, rule=error.rule, op=error.op, path=error.path, line=number,
                                 column=error.column, position=error.position)
    if isinstance(error, InvalidJSON):
        where.update(doc=error.doc, pos=error.pos)
    return type(error)(message, **where)


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


def _flags(*, pretty: bool, allow_duplicate_keys: bool, input_lines: bool = False, output_lines: bool = False,
           skip_invalid_lines: bool = False) -> int:
    """The C API's flag bits for the keyword options."""
    return (
        (_native.RESHAPE_PRETTY if pretty else 0)
        | (_native.RESHAPE_ALLOW_DUPLICATE_KEYS if allow_duplicate_keys else 0)
        | (_native.RESHAPE_INPUT_LINES if input_lines else 0)
        | (_native.RESHAPE_OUTPUT_LINES if output_lines else 0)
        | (_native.RESHAPE_SKIP_INVALID_LINES if skip_invalid_lines else 0)
    )


def _jobs(jobs: Optional[int]) -> int:
    """reshape_file_options.jobs: None is 0, the library's default of one thread per core."""
    if jobs is None:
        return 0
    if not isinstance(jobs, int) or isinstance(jobs, bool):
        raise TypeError(f"jobs must be a positive int or None, not {type(jobs).__name__}")
    if not 1 <= jobs <= _MAX_JOBS:
        raise ValueError(f"jobs must be a positive int or None, not {jobs!r}")
    return jobs


_PATH_TYPES = (str, bytes, os.PathLike)


def _descriptor(file: object) -> Optional[int]:
    """The descriptor that carries a file object's bytes as they are, or None.

    Only a file (io.FileIO) or a socket (socket.SocketIO), alone or under the standard buffered
    classes, as open() and socket.makefile() make them. Other objects may have a fileno() whose
    bytes are not theirs (gzip.GzipFile gives the compressed file's), or none (io.BytesIO).
    """
    import socket  # here, not at import: `import reshape` stays quick

    raw = file.raw if isinstance(file, (io.BufferedReader, io.BufferedWriter, io.BufferedRandom)) else file
    if not isinstance(raw, (io.FileIO, socket.SocketIO)):
        return None
    try:
        descriptor = raw.fileno()
    except io.UnsupportedOperation:
        return None
    return descriptor if descriptor >= 0 else None


def _check_file(file: object, name: str, method: str) -> None:
    if isinstance(file, io.TextIOBase):
        hint = " (for sys.stdin and sys.stdout, pass their .buffer)" if hasattr(file, "buffer") else ""
        raise TypeError(f"{name} must be a path or a binary file object, not a text file{hint}")
    if not callable(getattr(file, method, None)):
        raise TypeError(f"{name} must be a path or a binary file object with {method}(), not {type(file).__name__}")


def _safe_text(text: str) -> str:
    """`text` as the library's messages show it: control, separator and bidi characters escaped."""
    out = []
    for character in text:
        code = ord(character)
        if character == "\n":
            out.append("\\n")
        elif character == "\t":
            out.append("\\t")
        elif character == "\r":
            out.append("\\r")
        elif (code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0x200E, 0x200F)
              or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069):
            out.append(f"\\u{code:04X}")
        else:
            out.append(character)
    return "".join(out)


def _cannot_read(path: PathArgument, error: OSError, what: str = "input file") -> IOFailed:
    """The library's io_error for a file it cannot read, for the files this module reads itself."""
    reason = os.strerror(error.errno) if error.errno else str(error)
    code = error.errno or None
    side = "input" if what == "input file" else ""
    return io_failed_class(code)(f"io_error: cannot read {what} '{_shown_path(path)}': {reason}", errno=code,
                                 filename=os.fspath(path), io_file=side, status=IOFailed.status)


def _write_all(file: Any, data: bytes) -> None:
    """Writes all of `data` to a file object, also one whose write() may take only a part."""
    view = memoryview(data)
    while view:
        written = file.write(view)
        if written is None:  # a non-blocking raw stream that could take nothing; BufferedIO never does this
            raise BlockingIOError("dst could not take the output without blocking")
        view = view[written:]


def _native_limits(limits: Optional[Limits]) -> "Optional[_native.Limits]":
    if limits is None:
        return None
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a reshape.Limits, not {type(limits).__name__}")
    return _native.make_limits(
        limits.max_depth, limits.max_rules_bytes, limits.max_selected, limits.max_output_bytes, limits.max_work
    )


def _compiled(kind: "type[Rules]", document: bytes, limits: Optional[Limits]) -> "Rules":
    """Rules compiled from a rules document: how pickles and copies are made."""
    return kind(document, limits=limits)


class Rules:
    """A compiled rules document, reusable and safe to share between threads.

    A rules document is a list of rules, each ``{"op": NAME, ...params}``, run in order. The ops:
    ``unwrap``, ``wrap``, ``keyedToArray``, ``arrayToKeyed``, ``emptyObjectToNull``,
    ``blankStringToNull``, ``convertKeys``, ``renameKeys``, ``remove``, ``default``, ``coerce``,
    ``emptyArrayToNull``, ``keep``, ``hoist``, ``pluck``, ``flatten``, ``mapValues``;
    ``help(reshape.ops)`` gives each one's params, defaults and an example, and the paths they take.

    >>> rules = Rules([{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}])
    >>> rules.apply(b'{"u1": {"name": "Ada"}}')
    b'{"objects":[{"objectId":"u1","name":"Ada"}]}'

    Use it as a context manager, or call `close()`, to free the compiled rules at once; otherwise
    they are freed when the object is collected.

    Rules pickle as their rules document (and limits), and compile again where they are loaded, so
    they travel to `multiprocessing`, `concurrent.futures` and Dask or Spark workers as they are.
    `copy.copy` and `copy.deepcopy` compile again too: each object owns its compiled rules, and
    closing one never affects another.
    """

    def __init__(self, spec: RulesSpec, *, limits: Optional[Limits] = None) -> None:
        """Compiles a rules document.

        Args:
            spec: the rules document, as

                * a list of rules (dicts, or any mappings), or a dict ``{"rules": [...]}``;
                * JSON text, as a str or as UTF-8 bytes (a leading byte order mark is allowed).
                  A str is always JSON text, never a path: ``Rules.from_file("rules.json")``
                  reads a file;
                * a path-like object (`pathlib.Path`): the file it names is read, as by
                  `from_file`.
            limits: the work limits for the rules document and every apply; None for the defaults.

        Raises:
            InvalidRules: the document is not valid JSON or breaks the rules contract; the message
                names the rule, the param, and a suggestion for a typo. For a str or bytes that
                is not JSON at all (a path, say), it says to use `from_file`; for one rule given
                alone as a dict (``Rules({"op": ...})``), to wrap it in a list.
            IOFailed: a path-like `spec` names a file that cannot be read (see `from_file`).
            TypeError: `spec` is of another type.
        """
        document = _spec_bytes(spec)
        status, handle, error = _native.rules_new(document, _native_limits(limits))
        if status != 0 or handle is None:
            raise _rules_error(_error(status, error), spec, document)
        self._document = document
        self._limits = limits
        self._handle: Optional[int] = handle
        self._lock = threading.Lock()
        self._in_use = 0
        self._closed = False
        self._finalizer = weakref.finalize(self, _native.rules_free, handle)

    @classmethod
    def from_file(cls, path: PathArgument, *, limits: Optional[Limits] = None) -> "Rules":
        """Reads and compiles the rules document in a file.

        Args:
            path: the file's path: str, bytes or a path-like object (`pathlib.Path`). Its bytes
                are the document, UTF-8 JSON, a leading byte order mark allowed. A pipe works too
                (``/dev/stdin``): it is read to its end.
            limits: as for `Rules`.

        Raises:
            IOFailed: the file cannot be read: the `OSError` subclass `open()` raises
                (`FileNotFoundError`, `PermissionError`, `IsADirectoryError`...), with ``errno``,
                ``strerror`` and ``filename``; the message is "io_error: cannot read rules file
                'PATH': REASON", as the CLI words it.
            InvalidRules: as for `Rules`.
        """
        if not isinstance(path, _PATH_TYPES):
            raise TypeError(f"path must be a str, bytes or os.PathLike, not {type(path).__name__}")
        return cls(_FileContents(_read_rules_file(path)), limits=limits)

    @property
    def document(self) -> Any:
        """The rules document these rules were compiled from, as a new Python value on each call.

        A list of rule dicts (or the ``{"rules": [...]}`` dict, if that was the form given), in
        member order, numbers as `apply_loads` gives them; ``Rules(rules.document)`` compiles the
        same rules. Available after `close()` too.
        """
        return json.loads(self._document, parse_float=_parse_float, parse_int=_parse_int)

    @property
    def ops(self) -> Tuple[str, ...]:
        """The op of each rule, in order, as the library compiled them: ``("keyedToArray", ...)``.

        Raises:
            ValueError: the rules were closed.
        """
        handle = self._acquire()
        try:
            return tuple(_native.rules_op(handle, index) or "" for index in range(_native.rules_count(handle)))
        finally:
            self._release()

    def plan(self) -> List[str]:
        """How the rules run on a large document, as ``reshape check`` prints it after its first
        line: where the collection of records lies, then for each rule whether it runs per record
        (streaming) or needs the whole document, and why. One string per line, for people: the
        wording may change between releases.

        Raises:
            ValueError: the rules were closed.
        """
        handle = self._acquire()
        try:
            return _native.rules_plan(handle).splitlines()
        finally:
            self._release()

    def __repr__(self) -> str:
        if self._closed:
            return f"<reshape.Rules (closed) at {id(self):#x}>"
        try:
            ops = ", ".join(self.ops)
        except ValueError:  # closed by another thread since the check
            return f"<reshape.Rules (closed) at {id(self):#x}>"
        return f"<reshape.Rules [{ops}] at {id(self):#x}>"

    def __reduce__(self) -> Tuple[Any, ...]:
        if self._closed:
            raise ValueError("these rules are closed")
        return (_compiled, (type(self), self._document, self._limits))

    def __copy__(self) -> "Rules":
        # Never share the native handle: each copy compiles its own, and frees only its own.
        if self._closed:
            raise ValueError("these rules are closed")
        return _compiled(type(self), self._document, self._limits)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Rules":
        return self.__copy__()

    def apply(self, data: Data, *, pretty: bool = False, allow_duplicate_keys: bool = False, input_lines: bool = False,
              output_lines: bool = False, skip_invalid_lines: bool = False, jobs: Optional[int] = 1) -> bytes:
        """Reshapes a JSON document (or, with ``input_lines``, each line of a JSON Lines text).

        Args:
            data: UTF-8 JSON text (bytes, bytearray, memoryview or str).
            pretty: indent the output with two spaces. Not with ``input_lines`` or ``output_lines``.
            allow_duplicate_keys: let the last of duplicate member names win instead of failing.
            input_lines: JSON Lines in (https://jsonlines.org): each line is a document, reshaped on
                its own, its result written on a line of its own; lines of white space are skipped.
                An error gives the line number in ``line`` (and ``column`` 0 for a rule's error).
            output_lines: JSON Lines out: the resulting collection, one record per line. The result
                must be an array, or an object whose one member is an array (``keyedToArray`` with
                ``wrapIn``), else InvalidArgument.
            skip_invalid_lines: with ``input_lines``, skip a line that is not valid JSON instead of
                failing.
            jobs: threads that reshape a large collection's records: 1 (the default) is the calling
                thread alone, None one per core (at most 64 run). The result is the same bytes for
                any number; from about 1 MB on, more threads take less time (as `apply_file`).

        Returns:
            The reshaped document as UTF-8 JSON text (JSON Lines with the lines options). From 1 MiB
            of input (64 KiB on a thread other than the main one) the library hands the output
            over in pieces as it makes it, so that a large output is held once; on the main
            thread such a call then works on a helper thread, and Ctrl-C stops it at the next
            piece. The GIL is released while the library works.

        Raises:
            InvalidJSON, RuleFailed, LimitExceeded: with ``rule``, ``path``, ``line``, ``column``,
                ``position`` set where they apply.
            InvalidArgument: options that do not go together (``pretty`` with JSON Lines), or a
                result that is not a collection with ``output_lines``.
            TypeError: ``jobs`` is not an int or None. ValueError: ``jobs`` is below 1, or the rules
                were closed.
        """
        flags = _flags(pretty=pretty, allow_duplicate_keys=allow_duplicate_keys, input_lines=input_lines,
                       output_lines=output_lines, skip_invalid_lines=skip_invalid_lines)
        return self._apply(data, flags, _jobs(jobs))

    def trace(self, data: Data, path: str, *, allow_duplicate_keys: bool = False) -> Source:
        """Where the value at `path` of these rules' output for `data` was in `data`, or which
        rule made it (``reshape trace``).

        Reshapes `data` once more as a whole tree, following every value through each rule (a walk
        of the document per rule, counted against the work limit).

        Args:
            data: UTF-8 JSON text (bytes, bytearray, memoryview or str): one document.
            path: the path of one value of the output: a normalized path (``$['users'][3]['age']``)
                or any RFC 9535 path that selects at most one value (``$.users[3].age``).
            allow_duplicate_keys: as for `apply`.

        Returns:
            A `reshape.Source`: the value's path, line, column and position in `data`, or the rule
            that replaced it, added it, or made it from a member name; and the renamings of its
            member.

        Raises:
            InvalidJSON, RuleFailed, LimitExceeded: as `apply`.
            InvalidArgument: `path` is not a path, may select several values, or selects none in
                the output.
            ValueError: the rules were closed.

        >>> rules = Rules([{"op": "keyedToArray"}, {"op": "convertKeys", "to": "camelCase"}])
        >>> print(rules.trace('{"-Nx1": {"first_name": "Ada"}}', "$[0].firstName"))
        $['-Nx1']['first_name'], line 1, column 11, renamed by rule 2 (convertKeys) from "first_name"
        >>> rules.trace('{"-Nx1": {"first_name": "Ada"}}', "$[0].id").origin
        'memberName'
        """
        return Source.from_json(self._trace_json(data, path, allow_duplicate_keys))

    def explain(self, data: Data, *, allow_duplicate_keys: bool = False) -> "Explanation":
        """What each rule does on `data` (``reshape explain``): how many values its path selected
        and how many it changed, its first changes with their paths in the output and the input
        and the values before and after, whether it runs per record on this input and why, and
        its share of the time.

        Reshapes `data` once more as a whole tree, following every value through each rule.

        Args:
            data: UTF-8 JSON text (bytes, bytearray, memoryview or str): one document.
            allow_duplicate_keys: as for `apply`.

        Returns:
            A `reshape.Explanation`: ``.rules`` (one dict per rule that ran), ``.failure`` (the
            error of a rule that failed, whose later rules did not run, or None), and ``str()``
            the text ``reshape explain`` prints.

        Raises:
            InvalidJSON, LimitExceeded: as `apply` (a rule's failure is in ``.failure`` instead).
            ValueError: the rules were closed.

        >>> rules = Rules([{"op": "coerce", "path": "$.price", "to": "number"}])
        >>> found = rules.explain('{"price": "12.50"}')
        >>> found.rules[0]["changed"], found.rules[0]["examples"][0]["after"]
        (1, '12.5')
        """
        return Explanation(self._explain_json(data, allow_duplicate_keys))

    def _explain_json(self, data: Data, allow_duplicate_keys: bool) -> bytes:
        """reshape_explain's JSON object, as the library writes it (``python -m reshape explain --json``)."""
        flags = _flags(pretty=False, allow_duplicate_keys=allow_duplicate_keys)
        with borrowed(data) as (address, length):
            handle = self._acquire()
            try:
                status, output, error = _native.explain(handle, address, length, flags)
            finally:
                self._release()
        if status != 0 or output is None:
            raise _error(status, error, data)
        return output

    def _trace_json(self, data: Data, path: str, allow_duplicate_keys: bool) -> bytes:
        """reshape_trace's JSON object, as the library writes it (``python -m reshape trace --json``)."""
        flags = _flags(pretty=False, allow_duplicate_keys=allow_duplicate_keys)
        with borrowed(data) as (address, length):
            handle = self._acquire()
            try:
                status, output, error = _native.trace(handle, address, length, flags, path.encode("utf-8"))
            finally:
                self._release()
        if status != 0 or output is None:
            raise _error(status, error, data)
        return output

    def apply_loads(self, data: Data, *, parse_float: Optional[Callable[[str], Any]] = None,
                    allow_duplicate_keys: bool = False, input_lines: bool = False, output_lines: bool = False,
                    skip_invalid_lines: bool = False, jobs: Optional[int] = 1) -> Any:
        """Reshapes a JSON document and returns it as Python objects.

        Objects become dicts in member order; integers of any size become ints. By default no
        number changes its value: a real that a float cannot hold exactly (``1e400``,
        ``0.1000000000000000000001``) and ``-0`` become Decimals, every other real a float.

        Args:
            parse_float: as for `json.loads`: called with the text of every real, and its result
                used instead. ``parse_float=float`` gives plain floats throughout (``1e400`` becomes
                ``inf``), as a pandas or polars column wants; it is also called for ``-0``, the one
                integer an int cannot keep (``float("-0")`` is ``-0.0``). None keeps the exact
                default above.
            allow_duplicate_keys, input_lines, output_lines, skip_invalid_lines: as for `apply`.
                With ``input_lines`` or ``output_lines`` the output is JSON Lines, and the result is
                a list: the value of each line, in order.
        """
        output = self.apply(data, allow_duplicate_keys=allow_duplicate_keys, input_lines=input_lines,
                            output_lines=output_lines, skip_invalid_lines=skip_invalid_lines, jobs=jobs)
        reals = _parse_float if parse_float is None else parse_float
        integers = _parse_int if parse_float is None else _integers_then(parse_float)
        if input_lines or output_lines:
            return [json.loads(line, parse_float=reals, parse_int=integers) for line in output.splitlines() if line]
        return json.loads(output, parse_float=reals, parse_int=integers)

    async def apply_async(self, data: Data, *, pretty: bool = False, allow_duplicate_keys: bool = False,
                          input_lines: bool = False, output_lines: bool = False,
                          skip_invalid_lines: bool = False, jobs: Optional[int] = 1) -> bytes:
        """`apply`, for asyncio: the work runs on the event loop's default executor (a thread),
        so the loop goes on serving other tasks meanwhile (`apply` on 50 MB holds the calling
        thread for over a second).

        The arguments, the result and the errors are `apply`'s. `data` must not change until the
        call returns. Cancelling the awaiting task does not stop the work: the thread finishes it
        and the result is dropped. For the other methods, ``await asyncio.to_thread(rules.apply_file,
        src, dst)`` does the same (Python 3.9+).
        """
        return await _in_executor(lambda: self.apply(data, pretty=pretty, allow_duplicate_keys=allow_duplicate_keys,
                                                     input_lines=input_lines, output_lines=output_lines,
                                                     skip_invalid_lines=skip_invalid_lines, jobs=jobs))

    async def apply_loads_async(self, data: Data, *, parse_float: Optional[Callable[[str], Any]] = None,
                                allow_duplicate_keys: bool = False, input_lines: bool = False,
                                output_lines: bool = False, skip_invalid_lines: bool = False,
                                jobs: Optional[int] = 1) -> Any:
        """`apply_loads`, for asyncio, as `apply_async`: the reshaping and the parsing of its
        result into Python objects run on the event loop's default executor."""
        return await _in_executor(lambda: self.apply_loads(
            data, parse_float=parse_float, allow_duplicate_keys=allow_duplicate_keys, input_lines=input_lines,
            output_lines=output_lines, skip_invalid_lines=skip_invalid_lines, jobs=jobs))

    def apply_lines(self, lines: Iterable[Data], *, allow_duplicate_keys: bool = False,
                    skip_invalid_lines: bool = False) -> Iterator[bytes]:
        """Reshapes JSON Lines one document at a time, as they come: yields each result.

        For the streams that do not start from a file (a socket, a queue, a generator, a Kafka
        consumer); `apply_file` with ``input_lines=True`` is faster for a file. Each item of
        `lines` is one JSON document (str or bytes-like, with or without its line break); an item
        of white space only is skipped, as in a JSON Lines file. Each result is compact JSON
        without a line break. Lazy: an item is read only when the previous result was taken.

        Args:
            lines: an iterable of documents, such as an open binary file or a list of str.
            allow_duplicate_keys: as for `apply`.
            skip_invalid_lines: skip an item that is not valid JSON instead of raising; an item
                whose rules fail still raises.

        Raises:
            TypeError: `lines` is one str or bytes-like object (iterating it would give characters
                or numbers), raised by the call itself; pass ``text.splitlines()``, or reshape
                the whole text with ``apply(text, input_lines=True)``.
            InvalidJSON, RuleFailed, LimitExceeded: for the first item that fails, with ``line``
                set to its 1-based number in `lines` (blank items counted); ``column`` and
                ``position`` are within the item. The results before it were already yielded.
            ValueError: the rules were closed.
        """
        if isinstance(lines, (str, bytes, bytearray, memoryview, mmap.mmap)):
            raise TypeError(
                f"lines must be an iterable of documents, not one {type(lines).__name__}: pass "
                "text.splitlines(), or reshape JSON Lines text whole with apply(text, input_lines=True)")
        return self._apply_lines(lines, allow_duplicate_keys, skip_invalid_lines)

    def _apply_lines(self, lines: Iterable[Data], allow_duplicate_keys: bool,
                     skip_invalid_lines: bool) -> Iterator[bytes]:
        flags = _flags(pretty=False, allow_duplicate_keys=allow_duplicate_keys)
        for number, item in enumerate(lines, start=1):
            if _is_blank(item):
                continue
            try:
                yield self._apply(item, flags)
            except InvalidJSON as error:
                if skip_invalid_lines:
                    continue
                raise _on_line(error, number) from None
            except ReshapeError as error:
                raise _on_line(error, number) from None

    def apply_file(self, src: FileArgument, dst: FileArgument, *, jobs: Optional[int] = None,
                   progress: Optional[ProgressCallback] = None, pretty: bool = False, allow_duplicate_keys: bool = False,
                   input_lines: bool = False, output_lines: bool = False, skip_invalid_lines: bool = False,
                   on_skip: Optional[SkipCallback] = None) -> None:
        """Reshapes a file into a file, streaming: for large inputs, with bounded memory and threads.

        The output has the same bytes as `apply` on the input, or the call raises the same error.
        The input is read a piece at a time as the work goes, never mapped and never held whole:
        a pipe is parsed as its bytes come (the first byte that is not JSON ends the call), and a
        file that changes while it is read raises `IOFailed` ("changed while it was read"). When
        the document is one collection of records (a Firebase object, a top-level array, an array
        in an envelope), records are reshaped in batches on ``jobs`` threads and written as they are
        done. The GIL is released while the library works (except while ``progress`` runs).

        Args:
            src: the input: a path, or a binary file object. A file object is read from its current
                position to its end; a seekable one is left at its end afterwards.
            dst: the output: a path, or a binary file object.

                * A path is replaced only on success, all at once (through a temporary file in its
                  directory, without a name until then: a killed process leaves nothing behind):
                  it keeps its permissions, owner and group, and a symbolic link's target is
                  replaced. On failure it is untouched. A device or a pipe (``/dev/null``) is
                  written as the output comes, and so is an open descriptor named by
                  ``/dev/stdout``, ``/dev/fd/N`` or ``/proc/self/fd/N`` (at its position).
                * A file or socket object (``open(..., "wb")``, ``sys.stdout.buffer``,
                  ``socket.makefile("wb")``) is flushed, then its descriptor is written at its
                  position, as the output comes: **on failure it may have received a prefix of the
                  output** (and nothing after the failure). Afterwards, success or not, a seekable
                  one is positioned after what was written, so writing on through the file object
                  continues the output.
                * Any other file object (io.BytesIO, gzip.GzipFile, wrappers) receives the whole
                  output with ``write()``, on success only.

            jobs: threads that reshape records; None (the default) is one per core. At most 64
                run: a larger number runs 64. The output is the same for any number.
            progress: called on the calling thread as ``progress(bytes_done, bytes_total)``, about
                every half megabyte of input (for a document reshaped whole, as it is read, before
                its rules run) and once at the end with ``bytes_done == bytes_total``;
                ``bytes_total`` is the input's size from its starting position (for a pipe, whose
                size is known only at its end, 0 until its end was read). Its return value
                is ignored. To stop the work, raise an exception from it: the call is cancelled and
                the exception propagates from `apply_file` unchanged (the same object and
                traceback), with ``dst`` as for any failure. An exception from the final call
                (``bytes_done == bytes_total``) still propagates, though the work is then done and
                ``dst`` written. KeyboardInterrupt (Ctrl-C), or any exception of a signal handler,
                stops the call the same way, with or without ``progress``, at its next report:
                on the main thread, where signal handlers run, the library works on a helper
                thread while the calling thread waits (and calls ``progress``), so that what a
                handler raises is caught there. Nothing process-wide is changed (no hook, no
                signal handler).
            pretty, allow_duplicate_keys, input_lines, output_lines, skip_invalid_lines: as for
                `apply`.
            on_skip: with ``skip_invalid_lines``, called on the calling thread as
                ``on_skip(error)`` for each line skipped, in line order, before the output of the
                lines after it is written: ``error`` is the `InvalidJSON` the line would have
                raised (``line`` its number from 1). Its return value is ignored; an exception it
                raises stops the call as one of ``progress`` does.

        Where the work is done:

        * Both paths: the library reads and writes the files itself.
        * ``dst`` a file or socket object, ``src`` a path or a file or socket object: the library
          reads and writes their descriptors. A pipe or socket ``src`` is read through its
          descriptor, so bytes that the Python file object has already buffered from it (after
          ``peek()`` or ``readline()``) are not seen: pass such input unread.
        * ``dst`` a path, ``src`` a file object reading a pipe or a character device
          (``sys.stdin.buffer`` from a pipe, ``subprocess.Popen(...).stdout``): the library opens
          ``/proc/self/fd/N`` for that descriptor and reads it as its bytes come (the same caveat
          about buffered bytes).
        * ``dst`` a path, any other ``src`` file object: ``src`` is first copied, through Python,
          into a temporary file (in ``tempfile.gettempdir()``), which the library then reshapes into
          ``dst``, so that ``dst`` is still replaced only on success. Pass a path as ``src`` to
          avoid the copy.
        * Otherwise (``dst`` or ``src`` another kind of file object, ``dst`` not a path): the input
          is read into memory and reshaped by `apply`; ``jobs`` has no effect, and ``progress`` is
          called once, at the end, before anything is written.

        Raises:
            InvalidJSON, RuleFailed, LimitExceeded: as `apply`.
            IOFailed: a file cannot be read or written. It is the `OSError` subclass `open()` raises
                for the system's errno (`FileNotFoundError`, `PermissionError`,
                `IsADirectoryError`...; `IOFailed` itself for ENOSPC, EIO...), with ``errno``,
                ``strerror``, ``filename`` (the path given, or a file object's ``name``) and
                ``io_file`` ("input" or "output") set; the message names the file.
            InvalidArgument: options that do not go together (as `apply`).
            TypeError: ``src`` or ``dst`` is not a path or a binary file object (a text file is
                refused), or ``jobs`` is not an int; ValueError: ``jobs`` is below 1, or the rules
                were closed.
            Cancelled: the library reported a cancellation that no exception of ``progress``
                caused (not expected).
            Whatever ``progress`` raises.
        """
        flags = _flags(pretty=pretty, allow_duplicate_keys=allow_duplicate_keys, input_lines=input_lines,
                       output_lines=output_lines, skip_invalid_lines=skip_invalid_lines)
        threads = _jobs(jobs)
        if self._closed:
            raise ValueError("these rules are closed")
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable or None, not {type(progress).__name__}")
        if on_skip is not None and not callable(on_skip):
            raise TypeError(f"on_skip must be callable or None, not {type(on_skip).__name__}")
        callbacks = _Callbacks(progress, on_skip)
        if not isinstance(src, _PATH_TYPES):
            _check_file(src, "src", "read")
        if not isinstance(dst, _PATH_TYPES):
            _check_file(dst, "dst", "write")

        if isinstance(dst, _PATH_TYPES):
            if isinstance(src, _PATH_TYPES):
                self._apply_paths(src, dst, flags, threads, callbacks)
                return
            # The library replaces a path only when it reads a path. A pipe's (or a device's) is
            # /proc/self/fd/N, which it opens again and reads as the bytes come; anything else is
            # copied to a file first.
            reopened = _reopenable_path(src)
            if reopened is not None:
                path, descriptor = reopened
                files = _Files().path(_native.RESHAPE_IO_OUTPUT, dst).reopened(_native.RESHAPE_IO_INPUT, path, descriptor, src)
                self._apply_paths(path, dst, flags, threads, callbacks, files)
                return
            import tempfile  # here, not at import: `import reshape` stays quick

            with tempfile.NamedTemporaryFile(prefix="reshape-input-", suffix=".json") as copy:
                _copy_from(src, copy)
                copy.flush()
                files = _Files().path(_native.RESHAPE_IO_OUTPUT, dst)
                files.descriptor(_native.RESHAPE_IO_INPUT, -1, src)  # the copy is not what the caller knows
                self._apply_paths(copy.name, dst, flags, threads, callbacks, files)
            return

        dst_descriptor = _descriptor(dst)
        if dst_descriptor is not None and isinstance(src, _PATH_TYPES):
            try:
                opened = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
            except OSError as error:
                raise _cannot_read(src, error) from None
            try:
                files = _Files().descriptor(_native.RESHAPE_IO_INPUT, opened, src)
                files.descriptor(_native.RESHAPE_IO_OUTPUT, dst_descriptor, dst)
                self._apply_descriptors(opened, None, dst_descriptor, dst, flags, threads, callbacks, files)
            finally:
                os.close(opened)
            return
        src_descriptor = None if isinstance(src, _PATH_TYPES) else _descriptor(src)
        if dst_descriptor is not None and src_descriptor is not None:
            files = _Files().descriptor(_native.RESHAPE_IO_INPUT, src_descriptor, src)
            files.descriptor(_native.RESHAPE_IO_OUTPUT, dst_descriptor, dst)
            self._apply_descriptors(src_descriptor, src, dst_descriptor, dst, flags, threads, callbacks, files)
            return

        # In memory: dst has no descriptor, or src has none.
        if isinstance(src, _PATH_TYPES):
            try:
                with open(src, "rb") as file:
                    data = file.read()
            except OSError as error:
                raise _cannot_read(src, error) from None
        else:
            read = src.read()
            if not isinstance(read, (bytes, bytearray, memoryview)):
                raise TypeError(f"src.read() must return bytes, not {type(read).__name__}")
            data = bytes(read)
        output = self._apply(data, flags, on_skip=on_skip)
        if progress is not None:
            progress(len(data), len(data))
        _write_all(dst, output)

    def _apply_paths(self, src: PathArgument, dst: PathArgument, flags: int, jobs: int,
                     callbacks: "_Callbacks", files: Optional[_Files] = None) -> None:
        source, destination = os.fsencode(src), os.fsencode(dst)
        if b"\0" in source or b"\0" in destination:
            raise ValueError("embedded null byte in a path")
        if files is None:
            files = _Files().path(_native.RESHAPE_IO_INPUT, src).path(_native.RESHAPE_IO_OUTPUT, dst)
        self._apply_streaming(lambda handle, options: _native.apply_file(handle, source, destination, flags, options),
                              jobs, callbacks, files, _size_of(source))

    def _apply_descriptors(self, src: int, src_file: Optional[Any], dst: int, dst_file: Any, flags: int, jobs: int,
                           callbacks: "_Callbacks", files: _Files) -> None:
        # The library reads the descriptor from its offset and writes at the other's: first make
        # them agree with the file objects, whose buffers may hold read-ahead or unwritten bytes.
        src_seekable = src_file is not None and _seekable(src_file)
        if src_file is not None and src_seekable:
            os.lseek(src, src_file.tell(), os.SEEK_SET)
        dst_file.flush()
        try:
            self._apply_streaming(lambda handle, options: _native.apply_fd(handle, src, dst, flags, options), jobs,
                                  callbacks, files, _size_of(src))
        finally:
            # Then make the file objects agree with the descriptors again: a buffered file object
            # caches its position, and would otherwise read or write at a stale one.
            if src_file is not None and src_seekable:
                src_file.seek(0, os.SEEK_END)
            if _seekable(dst_file):
                dst_file.seek(os.lseek(dst, 0, os.SEEK_CUR), os.SEEK_SET)

    def _apply_streaming(self, call: "Callable[[int, _native.FileOptions], Tuple[int, _native.Error]]", jobs: int,
                         callbacks: "_Callbacks", files: _Files, input_size: Optional[int]) -> None:
        handle = self._acquire()
        try:
            if callbacks.none and input_size is not None and input_size < _QUICK_BELOW:
                # A short call with no callback runs no Python code: a signal's handler runs when it
                # returns, at once. Not worth a helper thread (about 150 us).
                status, error = call(handle, _native.file_options(jobs))
            else:
                # A callback, so that Ctrl-C (any signal handler's exception) stops a long call.
                running = Call(callbacks.progress)
                function = _native.progress_function(running.report)
                skipped = callbacks.skipped_function(running, files)
                options = _native.file_options(jobs, function, skipped)
                status, error = running.run(lambda: call(handle, options))
        finally:
            self._release()
        if status != 0:
            raise _error(status, error, files=files)

    def _apply(self, data: Data, flags: int, jobs: int = 1, on_skip: Optional[SkipCallback] = None) -> bytes:
        with borrowed(data) as (address, length):
            handle = self._acquire()
            try:
                # Below _IN_PIECES_FROM the library reshapes on the calling thread whatever jobs is.
                # Skipped lines are reported through reshape_apply_with's options only.
                if on_skip is None and (length < _IN_PIECES_FROM
                                        or (length < _IN_PIECES_ON_MAIN_FROM and _on_main_thread() and jobs == 1)):
                    status, output, error = _native.apply(handle, address, length, flags)
                else:
                    status, output, error = _apply_in_pieces(handle, address, length, flags, jobs, on_skip, data)
            finally:
                self._release()
        if status != 0 or output is None:
            raise _error(status, error, data)
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


def _size_of(file: Union[bytes, int]) -> Optional[int]:
    """The bytes left to read in a regular file (a path, or a descriptor from its offset); None
    for anything else (a pipe, a device), or when it cannot be known."""
    try:
        info = os.stat(file)
        if not stat.S_ISREG(info.st_mode):
            return None
        return info.st_size - (os.lseek(file, 0, os.SEEK_CUR) if isinstance(file, int) else 0)
    except OSError:
        return None


async def _in_executor(work: Callable[[], T]) -> T:
    """`work()` on the running loop's default executor, in a copy of the caller's context, as
    asyncio.to_thread does (which Python 3.8 lacks)."""
    import asyncio  # here, not at import: `import reshape` stays quick
    import contextvars
    import functools

    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(context.run, work))


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _apply_in_pieces(handle: int, address: Union[bytes, int], length: int, flags: int, jobs: int = 1,
                     on_skip: Optional[SkipCallback] = None,
                     data: Any = "") -> "Tuple[int, Optional[bytes], _native.Error]":
    """reshape_apply_cb into an io.BytesIO: the output is held once, in Python's memory.

    The library hands over a streamed output as it is made, and gives back the pages of one made
    whole as they are taken; BytesIO grows in place (realloc), and getvalue() returns its buffer
    itself, without a copy, when nothing else views it. Ctrl-C stops the call at the next piece.
    With `jobs` other than 1 (0: one per core), reshape_apply_with reshapes on that many threads.
    """
    out = io.BytesIO()
    running = Call()

    def take(piece: memoryview) -> int:
        # A refusal returns -1: a positive value would be read as an errno (1 is EPERM). The
        # exception that caused it is what run() raises, not the io_error.
        if running.cancelled:
            return -1
        try:
            out.write(piece)
        except BaseException as error:  # noqa: B902 - MemoryError...: raised again by run()
            running.fail(error)
            return -1
        return 0

    skipped = _Callbacks(None, on_skip).skipped_function(running, None, data)
    options = None if jobs == 1 and skipped is None else _native.file_options(jobs, skipped=skipped)
    status, error = running.run(lambda: _native.apply_cb(handle, address, length, flags, take, options))
    if status != 0:
        return status, None, error
    return status, out.getvalue(), error


class _Callbacks:
    """The caller's callbacks of one streaming call: ``progress`` and ``on_skip``."""

    def __init__(self, progress: Optional[ProgressCallback], on_skip: Optional[SkipCallback]) -> None:
        self.progress = progress
        self.on_skip = on_skip

    @property
    def none(self) -> bool:
        return self.progress is None and self.on_skip is None

    def skipped_function(self, running: Call, files: "Optional[_Files]", data: Any = "") -> Any:
        """A reshape_skipped_fn for `running` that hands ``on_skip`` the line's InvalidJSON on the
        caller's thread; None without ``on_skip``. Keep it alive for the call."""
        on_skip = self.on_skip
        if on_skip is None:
            return None

        def skipped(error: "_native.Error") -> None:
            # The library's error is valid during this call only: made into the exception here.
            running.call_back(on_skip, _error(error.code, error, data, files=files))

        return _native.skipped_function(skipped)


def _own_name_resolved(kind: type) -> None:
    """Replaces the forward reference "Rules" in the annotations of `kind`'s methods by the class,
    so that help() shows ``-> reshape.Rules`` rather than a string."""
    for member in vars(kind).values():
        function = getattr(member, "__func__", member)
        annotations = getattr(function, "__annotations__", None)
        if isinstance(annotations, dict):
            for name, annotation in annotations.items():
                if annotation == kind.__name__:
                    annotations[name] = kind


_own_name_resolved(Rules)


def _seekable(file: Any) -> bool:
    seekable = getattr(file, "seekable", None)
    return bool(seekable()) if callable(seekable) else False


def _copy_from(src: Any, copy: Any) -> None:
    """Copies a file object's bytes, from its position to its end, into `copy`."""
    while True:
        chunk = src.read(_COPY_CHUNK)
        if chunk is None:  # a non-blocking raw stream with nothing ready
            raise BlockingIOError("src has no data ready; pass a blocking file object")
        if not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError(f"src.read() must return bytes, not {type(chunk).__name__}")
        if not chunk:
            return
        copy.write(chunk)


def apply(spec: RulesSpec, data: Data, *, pretty: bool = False, allow_duplicate_keys: bool = False,
          input_lines: bool = False, output_lines: bool = False, skip_invalid_lines: bool = False,
          jobs: Optional[int] = 1) -> bytes:
    """Compiles `spec` and reshapes `data` once. Keep a `Rules` to reshape many documents.

    See `Rules` and `Rules.apply` for the arguments and errors.
    """
    with Rules(spec) as rules:
        return rules.apply(data, pretty=pretty, allow_duplicate_keys=allow_duplicate_keys, input_lines=input_lines,
                           output_lines=output_lines, skip_invalid_lines=skip_invalid_lines, jobs=jobs)
