"""Lending the library a Python buffer in place: bytes, bytearray, memoryview and mmap, never copied.

A `bytes` object is handed to ctypes as it is. Any other buffer is exported with
PyObject_GetBuffer for the length of the call, as a C extension would do: the export pins the
memory (a bytearray cannot be resized, an mmap cannot be closed while it is lent) and gives its
address and length (_native declares the C API's functions). Without CPython's C API (another
interpreter), the buffer is copied instead.
"""

import mmap
from contextlib import contextmanager
from typing import Iterator, Tuple, Union

from . import _native

#: What the apply methods read: UTF-8 JSON text.
Data = Union[bytes, bytearray, memoryview, mmap.mmap, str]

@contextmanager
def borrowed(data: Data) -> Iterator[Tuple[Union[bytes, int], int]]:
    """``(what ctypes passes as const char *, length)`` for `data`, valid inside the block.

    bytes is passed as it is; a str is encoded (a copy, since the library reads UTF-8; lone
    surrogates pass through as bytes the engine rejects, with a position); any other buffer is read
    where it lies. The buffer must not be changed while the library reads it (a bytearray or a
    writable mmap being written by another thread during the call).

    Raises:
        TypeError: `data` is not one of the accepted types, or a memoryview is not contiguous.
    """
    if isinstance(data, bytes):
        yield data, len(data)
        return
    if isinstance(data, str):
        encoded = data.encode("utf-8", "surrogatepass")
        yield encoded, len(encoded)
        return
    if not isinstance(data, (bytearray, memoryview, mmap.mmap)):
        raise TypeError(f"data must be bytes, bytearray, memoryview, mmap or str, not {type(data).__name__}")
    if isinstance(data, memoryview) and not data.c_contiguous:
        raise TypeError("data must be a contiguous memoryview; pass bytes(view) to copy a strided one")
    if not _native.BUFFERS_IN_PLACE:
        copy = bytes(data)
        yield copy, len(copy)
        return
    view = _native.get_buffer(data)
    if view is None:  # pragma: no cover - refused above
        raise TypeError(f"cannot read the {type(data).__name__} in place")
    try:
        # An empty buffer may have no address at all; the library needs one, even for 0 bytes.
        yield (view.buf if view.buf else b""), view.len
    finally:
        _native.release_buffer(view)
