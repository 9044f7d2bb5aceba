"""The one place that touches ctypes: loading libreshape and declaring its functions.

Lookup order: the RESHAPE_LIBRARY environment variable, the library shipped inside this package,
then the system (ctypes.util.find_library). The public modules never use ctypes directly.
"""

import ctypes
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

from ._version import __version__

PACKAGED_LIBRARY = Path(__file__).resolve().parent / "_lib" / "libreshape.so"

RESHAPE_PRETTY = 0x1
RESHAPE_ALLOW_DUPLICATE_KEYS = 0x2
RESHAPE_INPUT_LINES = 0x4
RESHAPE_OUTPUT_LINES = 0x8
RESHAPE_SKIP_INVALID_LINES = 0x10

RESHAPE_CANCELLED = 8
RESHAPE_IO_ERROR = 10

# reshape_error.io_file: which file a RESHAPE_IO_ERROR is about.
RESHAPE_IO_NONE = 0
RESHAPE_IO_INPUT = 1
RESHAPE_IO_OUTPUT = 2


class Error(ctypes.Structure):
    """struct reshape_error, as include/reshape.h declares it (0.2: op, sys_errno, io_file; 0.3: source_*).

    Its size is fixed within an ABI version: later fields come out of `reserved`, which the
    library zeroes, so this declaration stays valid for every library the loader accepts.
    """

    _fields_ = [
        ("code", ctypes.c_int),
        ("rule", ctypes.c_int),
        ("line", ctypes.c_size_t),
        ("column", ctypes.c_size_t),
        ("position", ctypes.c_size_t),
        ("path", ctypes.c_char * 512),
        ("message", ctypes.c_char * 512),
        ("op", ctypes.c_char * 32),
        ("sys_errno", ctypes.c_int),
        ("io_file", ctypes.c_int),
        ("source_path", ctypes.c_char * 352),
        ("source_line", ctypes.c_size_t),
        ("source_column", ctypes.c_size_t),
        ("source_position", ctypes.c_size_t),
        ("source_origin", ctypes.c_int),
        ("source_rule", ctypes.c_int),
        ("source_op", ctypes.c_char * 32),
        ("reserved", ctypes.c_ubyte * (440 - 392 - 3 * ctypes.sizeof(ctypes.c_size_t))),
    ]


RESHAPE_LIMITS_VERSION = 1


class Limits(ctypes.Structure):
    """struct reshape_limits, as include/reshape.h declares it (version 1)."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("max_depth", ctypes.c_size_t),
        ("max_rules_bytes", ctypes.c_size_t),
        ("max_selected", ctypes.c_size_t),
        ("max_output_bytes", ctypes.c_size_t),
        ("max_work", ctypes.c_size_t),
    ]


RESHAPE_FILE_OPTIONS_VERSION = 2

#: reshape_progress_fn: int (*)(uint64_t bytes_done, uint64_t bytes_total, void *user_data); a
#: nonzero return cancels the call.
ProgressFunction = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p)


#: reshape_skipped_fn: void (*)(const reshape_error *err, void *user_data).
SkippedFunction = ctypes.CFUNCTYPE(None, ctypes.POINTER(Error), ctypes.c_void_p)


#: reshape_write_fn: int (*)(const char *buffer, size_t size, void *data); a nonzero return stops
#: the call with RESHAPE_IO_ERROR. The buffer is c_void_p: a c_char_p would be read up to a NUL.
WriteFunction = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)

#: The most reshape_apply_cb hands over at once: a piece is viewed through an array of this size.
PIECE_MAX = 1 << 20
_Piece = ctypes.c_char * PIECE_MAX


class FileOptions(ctypes.Structure):
    """struct reshape_file_options, as include/reshape.h declares it (version 2)."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("jobs", ctypes.c_uint),
        ("progress", ProgressFunction),
        ("progress_data", ctypes.c_void_p),
        ("skipped", SkippedFunction),
        ("skipped_data", ctypes.c_void_p),
    ]


class LibraryNotFound(ImportError):
    """No usable libreshape could be loaded."""


def _candidates() -> Iterator[Tuple[str, str]]:
    """(where it came from, what to load), in lookup order, each looked for only when the ones
    before it did not load: finding a system library runs `ldconfig -p` (about 20 ms), which an
    installed wheel, whose library is packaged, never needs."""
    explicit = os.environ.get("RESHAPE_LIBRARY")
    if explicit:
        yield ("RESHAPE_LIBRARY", explicit)
        return  # An explicit choice is never silently replaced by another library.
    if PACKAGED_LIBRARY.exists():
        yield ("packaged", str(PACKAGED_LIBRARY))
    import ctypes.util  # only here: it imports subprocess and tempfile

    system = ctypes.util.find_library("reshape")
    if system:
        yield ("system", system)


def _load() -> Tuple[ctypes.CDLL, str, str]:
    problems: List[str] = []
    for origin, path in _candidates():
        try:
            return ctypes.CDLL(path), origin, path
        except OSError as error:
            problems.append(f"{origin} {path}: {error}")
    tried = "; ".join(problems) if problems else "no RESHAPE_LIBRARY, no packaged library, none on the system"
    raise LibraryNotFound(
        "reshape: cannot load libreshape (" + tried + "). Install the package from a clone with "
        "`pip install ./bindings/python` (it builds the library), or build it with "
        "`cmake -S . -B build && cmake --build build` and set RESHAPE_LIBRARY=build/lib/libreshape.so."
    )


lib, origin, path = _load()

# CDLL (not PyDLL): ctypes releases the GIL around every call, so threads reshape in parallel.
lib.reshape_version.argtypes = []
lib.reshape_version.restype = ctypes.c_char_p
# The version is checked before any other function is declared: a library of another ABI may lack
# them (0.1 has no reshape_version_number), and is refused with a message, not an AttributeError.
_version_number = getattr(lib, "reshape_version_number", None)
if _version_number is not None:
    _version_number.argtypes = []
    _version_number.restype = ctypes.c_uint


def library_version() -> str:
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    version: bytes = lib.reshape_version()
    return version.decode("ascii")


def _number(version: str) -> int:
    """ "MAJOR.MINOR.PATCH" as MAJOR * 10000 + MINOR * 100 + PATCH, as RESHAPE_VERSION_NUMBER is."""
    parts = [int(match.group()) for match in re.finditer(r"\d+", version)][:3]
    parts += [0] * (3 - len(parts))
    return parts[0] * 10000 + parts[1] * 100 + parts[2]


def _text(number: int) -> str:
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def _abi(number: int) -> Tuple[int, ...]:
    """What must match: before 1.0 the major and minor versions (a 0.x minor may change the ABI,
    as 0.2 did with reshape_error's size), from 1.0 on the major."""
    major, minor = number // 10000, number // 100 % 100
    return (major, minor) if major == 0 else (major,)


def version_number() -> int:
    """reshape_version_number(): the loaded library's MAJOR * 10000 + MINOR * 100 + PATCH.

    A library older than 0.2 has no such function; its version string gives the same number.
    """
    if _version_number is None:
        return _number(library_version())
    return int(_version_number())


def check_version(loaded: "Union[int, str]", expected: str = __version__) -> None:
    """Refuses a library whose ABI differs from the one this package was written for.

    `loaded` is the library's version number (or "MAJOR.MINOR.PATCH"). Before 1.0 the major and
    minor versions must match, from 1.0 on the major: the layout of the structs shared with the
    library (Error above) is the one of that ABI.
    """
    loaded_number = _number(loaded) if isinstance(loaded, str) else int(loaded)
    expected_number = _number(expected)
    if _abi(loaded_number) != _abi(expected_number):
        must = "major and minor versions" if expected_number < 10000 else "major versions"
        raise LibraryNotFound(
            f"reshape: {path} ({origin}) is libreshape {_text(loaded_number)}, but this package is {expected} "
            f"and needs libreshape {'.'.join(map(str, _abi(expected_number)))}.x; the {must} must match. "
            "Rebuild the library or reinstall the package."
        )


check_version(version_number())

lib.reshape_status_name.argtypes = [ctypes.c_int]
lib.reshape_status_name.restype = ctypes.c_char_p
lib.reshape_rules_new.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Error)]
lib.reshape_rules_new.restype = ctypes.c_int
lib.reshape_rules_new_with_limits.argtypes = [
    ctypes.c_char_p,
    ctypes.c_size_t,
    ctypes.POINTER(Limits),
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(Error),
]
lib.reshape_rules_new_with_limits.restype = ctypes.c_int
lib.reshape_rules_free.argtypes = [ctypes.c_void_p]
lib.reshape_rules_free.restype = None
lib.reshape_rules_count.argtypes = [ctypes.c_void_p]
lib.reshape_rules_count.restype = ctypes.c_size_t
lib.reshape_rules_op.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
lib.reshape_rules_op.restype = ctypes.c_char_p  # static, never freed: c_char_p copies it to bytes
lib.reshape_rules_plan.argtypes = [ctypes.c_void_p]
lib.reshape_rules_plan.restype = ctypes.c_void_p  # the caller's: freed with reshape_free
lib.reshape_apply.argtypes = [
    ctypes.c_void_p,
    ctypes.c_void_p,  # const char *input: an address, or bytes (read in place, never copied)
    ctypes.c_size_t,
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_void_p),  # char **: c_void_p keeps the pointer, so it can be freed
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(Error),
]
lib.reshape_apply.restype = ctypes.c_int
lib.reshape_trace.argtypes = [
    ctypes.c_void_p,
    ctypes.c_void_p,  # const char *input, as for reshape_apply
    ctypes.c_size_t,
    ctypes.c_uint32,
    ctypes.c_char_p,  # const char *path
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(Error),
]
lib.reshape_trace.restype = ctypes.c_int
lib.reshape_explain.argtypes = [
    ctypes.c_void_p,
    ctypes.c_void_p,  # const char *input, as for reshape_apply
    ctypes.c_size_t,
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(Error),
]
lib.reshape_explain.restype = ctypes.c_int
lib.reshape_infer.argtypes = [
    ctypes.c_char_p,  # const char *samples
    ctypes.c_size_t,
    ctypes.c_char_p,  # const char *options
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(Error),
]
lib.reshape_infer.restype = ctypes.c_int
lib.reshape_apply_cb.argtypes = [
    ctypes.c_void_p,
    ctypes.c_void_p,  # const char *input, as for reshape_apply
    ctypes.c_size_t,
    ctypes.c_uint,
    WriteFunction,
    ctypes.c_void_p,
    ctypes.POINTER(Error),
]
lib.reshape_apply_cb.restype = ctypes.c_int
lib.reshape_apply_with.argtypes = [
    ctypes.c_void_p,
    ctypes.c_void_p,  # const char *input, as for reshape_apply
    ctypes.c_size_t,
    ctypes.c_uint,
    ctypes.POINTER(FileOptions),
    WriteFunction,
    ctypes.c_void_p,
    ctypes.POINTER(Error),
]
lib.reshape_apply_with.restype = ctypes.c_int
lib.reshape_apply_file.argtypes = [
    ctypes.c_void_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_uint,
    ctypes.POINTER(FileOptions),
    ctypes.POINTER(Error),
]
lib.reshape_apply_file.restype = ctypes.c_int
lib.reshape_apply_fd.argtypes = [
    ctypes.c_void_p,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_uint,
    ctypes.POINTER(FileOptions),
    ctypes.POINTER(Error),
]
lib.reshape_apply_fd.restype = ctypes.c_int
lib.reshape_free.argtypes = [ctypes.c_void_p]
lib.reshape_free.restype = None



class PyBuffer(ctypes.Structure):
    """Py_buffer, as Python's buffer protocol declares it (part of the stable ABI since 3.11)."""

    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.c_void_p),
        ("strides", ctypes.c_void_p),
        ("suboffsets", ctypes.c_void_p),
        ("internal", ctypes.c_void_p),
    ]


_PyBUF_SIMPLE = 0  # a contiguous run of bytes, read only; refused by a non-contiguous exporter

try:  # CPython's C API, for lending a buffer to the library in place (see _buffers.py)
    _get_buffer = ctypes.pythonapi.PyObject_GetBuffer
    _get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int]
    _get_buffer.restype = ctypes.c_int
    _release_buffer = ctypes.pythonapi.PyBuffer_Release
    _release_buffer.argtypes = [ctypes.POINTER(PyBuffer)]
    _release_buffer.restype = None
    BUFFERS_IN_PLACE = True
except (AttributeError, OSError):  # no CPython C API: _buffers.py copies instead
    BUFFERS_IN_PLACE = False


def get_buffer(exporter: object) -> Optional[PyBuffer]:
    """PyObject_GetBuffer(exporter, PyBUF_SIMPLE): the exporter's memory, pinned until
    release_buffer(); None when it refuses (ctypes raises its exception, a BufferError, first)."""
    view = PyBuffer()
    if _get_buffer(exporter, ctypes.byref(view), _PyBUF_SIMPLE) != 0:  # pragma: no cover - it raised
        return None
    return view


def release_buffer(view: PyBuffer) -> None:
    """PyBuffer_Release: unpins what get_buffer() lent."""
    _release_buffer(ctypes.byref(view))


def make_limits(*fields: Optional[int]) -> Limits:
    """A struct reshape_limits: None is 0 (the default); sizes beyond size_t are its maximum."""
    maximum = 2 ** (ctypes.sizeof(ctypes.c_size_t) * 8) - 1
    return Limits(RESHAPE_LIMITS_VERSION, *(0 if value is None else min(value, maximum) for value in fields))


def rules_new(spec: bytes, limits: Optional[Limits] = None) -> Tuple[int, Optional[int], Error]:
    """reshape_rules_new_with_limits: (status, handle or None, error); None means the defaults."""
    handle = ctypes.c_void_p()
    error = Error()
    limits_pointer = ctypes.byref(limits) if limits is not None else None
    status = lib.reshape_rules_new_with_limits(spec, len(spec), limits_pointer, ctypes.byref(handle), ctypes.byref(error))
    return status, handle.value, error


def rules_free(handle: int) -> None:
    """reshape_rules_free."""
    lib.reshape_rules_free(handle)


def rules_count(handle: Optional[int]) -> int:
    """reshape_rules_count: the number of rules; 0 for None."""
    return int(lib.reshape_rules_count(handle))


def rules_op(handle: Optional[int], index: int) -> Optional[str]:
    """reshape_rules_op: the op of rule `index` (0-based); None past the end or for None.

    A negative index is past the end too, as the size_t it would wrap to is.
    """
    if index < 0:
        return None
    op = lib.reshape_rules_op(handle, index)
    return None if op is None else op.decode("utf-8")


def rules_plan(handle: int) -> str:
    """reshape_rules_plan: the streaming plan's text, one line per rule, each ending with a newline."""
    text = lib.reshape_rules_plan(handle)
    if text is None:
        raise MemoryError("reshape_rules_plan returned NULL")
    try:
        return ctypes.string_at(text).decode("utf-8")
    finally:
        free(text)


def apply(handle: int, data: "Union[bytes, int]", length: int, flags: int) -> Tuple[int, Optional[bytes], Error]:
    """reshape_apply: (status, output or None, error). The library's buffer is copied, then freed
    here, once: the output is held twice for a moment, so `apply_cb` serves large outputs.

    `data` is bytes, or the address of `length` bytes that stay valid and unchanged for the call.
    """
    out = ctypes.c_void_p()
    out_length = ctypes.c_size_t()
    error = Error()
    status = lib.reshape_apply(handle, data, length, flags, ctypes.byref(out), ctypes.byref(out_length), ctypes.byref(error))
    if status != 0 or out.value is None:
        return status, None, error
    try:
        return status, ctypes.string_at(out.value, out_length.value), error
    finally:
        free(out.value)


def _taken(status: int, out: ctypes.c_void_p, out_length: ctypes.c_size_t, error: Error) -> Tuple[int, Optional[bytes], Error]:
    """A call's JSON output, copied and freed: (status, the bytes or None, error)."""
    if status != 0 or out.value is None:
        return status, None, error
    try:
        return status, ctypes.string_at(out.value, out_length.value), error
    finally:
        free(out.value)


def trace(handle: int, data: "Union[bytes, int]", length: int, flags: int, path: bytes) -> Tuple[int, Optional[bytes], Error]:
    """reshape_trace: (status, the source as JSON text or None, error)."""
    out = ctypes.c_void_p()
    out_length = ctypes.c_size_t()
    error = Error()
    status = lib.reshape_trace(handle, data, length, flags, path, ctypes.byref(out), ctypes.byref(out_length),
                               ctypes.byref(error))
    return _taken(status, out, out_length, error)


def explain(handle: int, data: "Union[bytes, int]", length: int, flags: int) -> Tuple[int, Optional[bytes], Error]:
    """reshape_explain: (status, the explanation as JSON text or None, error)."""
    out = ctypes.c_void_p()
    out_length = ctypes.c_size_t()
    error = Error()
    status = lib.reshape_explain(handle, data, length, flags, ctypes.byref(out), ctypes.byref(out_length), ctypes.byref(error))
    return _taken(status, out, out_length, error)


def infer(samples: bytes, options: bytes) -> Tuple[int, Optional[bytes], Error]:
    """reshape_infer: (status, the result as JSON text or None, error)."""
    out = ctypes.c_void_p()
    out_length = ctypes.c_size_t()
    error = Error()
    status = lib.reshape_infer(samples, len(samples), options, ctypes.byref(out), ctypes.byref(out_length),
                               ctypes.byref(error))
    return _taken(status, out, out_length, error)


def apply_cb(handle: int, data: "Union[bytes, int]", length: int, flags: int,
             take: Callable[[memoryview], int], options: "Optional[FileOptions]" = None) -> Tuple[int, Error]:
    """reshape_apply_cb, or with `options` (threads) reshape_apply_with: (status, error).
    ``take(piece)`` gets each piece of the output in order, a memoryview of the library's bytes
    that is valid during that call only (copy it), and returns 0 to go on or an errno value to
    stop. `take` must not raise (see _calls.py)."""

    def write(buffer: int, size: int, _data: Optional[int]) -> int:
        kind = _Piece if size <= PIECE_MAX else ctypes.c_char * size
        return take(memoryview(kind.from_address(buffer))[:size])

    function = WriteFunction(write)  # kept alive here until the call returns
    error = Error()
    if options is None:
        status = lib.reshape_apply_cb(handle, data, length, flags, function, None, ctypes.byref(error))
    else:
        status = lib.reshape_apply_with(handle, data, length, flags, ctypes.byref(options), function, None,
                                        ctypes.byref(error))
    return status, error


def progress_function(report: Callable[[int, int], int]) -> Any:
    """A reshape_progress_fn that calls ``report(bytes_done, bytes_total)`` and returns its answer.

    The caller keeps the returned object for as long as the library may call it (a collected
    ctypes thunk would be jumped into after it is freed). `report` must not raise: an exception
    cannot cross the library's C frames (see _calls.py).
    """
    return ProgressFunction(lambda done, total, data: report(done, total))


def skipped_function(report: Callable[[Error], None]) -> Any:
    """A reshape_skipped_fn that calls ``report(error)`` with the skipped line's error, which is
    valid during the call only. Kept alive and not raising, as for progress_function()."""
    return SkippedFunction(lambda error, data: report(error.contents))


def file_options(jobs: int, progress: Any = None, skipped: Any = None) -> FileOptions:
    """A struct reshape_file_options of the version this module declares; `progress` is a
    progress_function() or None, `skipped` a skipped_function() or None; both must outlive the call."""
    options = FileOptions(RESHAPE_FILE_OPTIONS_VERSION, jobs)
    if progress is not None:
        options.progress = progress
    if skipped is not None:
        options.skipped = skipped
    return options


def apply_file(handle: int, source: bytes, destination: bytes, flags: int, options: FileOptions) -> Tuple[int, Error]:
    """reshape_apply_file: (status, error). The paths are file system encoded bytes."""
    error = Error()
    status = lib.reshape_apply_file(handle, source, destination, flags, ctypes.byref(options), ctypes.byref(error))
    return status, error


def apply_fd(handle: int, source: int, destination: int, flags: int, options: FileOptions) -> Tuple[int, Error]:
    """reshape_apply_fd: (status, error). Both descriptors stay open and belong to the caller."""
    error = Error()
    status = lib.reshape_apply_fd(handle, source, destination, flags, ctypes.byref(options), ctypes.byref(error))
    return status, error


def free(buffer: Optional[int]) -> None:
    """reshape_free; a separate function so tests can count the frees."""
    lib.reshape_free(buffer)
