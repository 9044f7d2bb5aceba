"""The one place that touches ctypes: loading libreshape and declaring its functions.

Lookup order: the RESHAPE_LIBRARY environment variable, the library shipped inside this package,
then the system (ctypes.util.find_library). The public modules never use ctypes directly.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import List, Optional, Tuple

from ._version import __version__

PACKAGED_LIBRARY = Path(__file__).resolve().parent / "_lib" / "libreshape.so"

RESHAPE_PRETTY = 0x1
RESHAPE_ALLOW_DUPLICATE_KEYS = 0x2


class Error(ctypes.Structure):
    """struct reshape_error, as include/reshape.h declares it."""

    _fields_ = [
        ("code", ctypes.c_int),
        ("rule", ctypes.c_int),
        ("line", ctypes.c_size_t),
        ("column", ctypes.c_size_t),
        ("position", ctypes.c_size_t),
        ("path", ctypes.c_char * 512),
        ("message", ctypes.c_char * 512),
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


class LibraryNotFound(ImportError):
    """No usable libreshape could be loaded."""


def _candidates() -> List[Tuple[str, str]]:
    """(where it came from, what to load), in lookup order."""
    found: List[Tuple[str, str]] = []
    explicit = os.environ.get("RESHAPE_LIBRARY")
    if explicit:
        found.append(("RESHAPE_LIBRARY", explicit))
        return found  # An explicit choice is never silently replaced by another library.
    if PACKAGED_LIBRARY.exists():
        found.append(("packaged", str(PACKAGED_LIBRARY)))
    system = ctypes.util.find_library("reshape")
    if system:
        found.append(("system", system))
    return found


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
lib.reshape_apply.argtypes = [
    ctypes.c_void_p,
    ctypes.c_char_p,
    ctypes.c_size_t,
    ctypes.c_uint32,
    ctypes.POINTER(ctypes.c_void_p),  # char **: c_void_p keeps the pointer, so it can be freed
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(Error),
]
lib.reshape_apply.restype = ctypes.c_int
lib.reshape_free.argtypes = [ctypes.c_void_p]
lib.reshape_free.restype = None


def library_version() -> str:
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return lib.reshape_version().decode("ascii")


def check_version(loaded: str, expected: str = __version__) -> None:
    """Refuses a library whose major version differs from this package's."""
    if loaded.split(".")[0] != expected.split(".")[0]:
        raise LibraryNotFound(
            f"reshape: {path} ({origin}) is libreshape {loaded}, but this package is {expected}; "
            "the major versions must match. Rebuild the library or reinstall the package."
        )


check_version(library_version())


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


def apply(handle: int, data: bytes, flags: int) -> Tuple[int, Optional[bytes], Error]:
    """reshape_apply: (status, output or None, error). The library's buffer is freed here, once."""
    out = ctypes.c_void_p()
    out_length = ctypes.c_size_t()
    error = Error()
    status = lib.reshape_apply(handle, data, len(data), flags, ctypes.byref(out), ctypes.byref(out_length), ctypes.byref(error))
    if status != 0:
        return status, None, error
    try:
        return status, ctypes.string_at(out.value, out_length.value), error
    finally:
        free(out.value)


def free(buffer: Optional[int]) -> None:
    """reshape_free; a separate function so tests can count the frees."""
    lib.reshape_free(buffer)
