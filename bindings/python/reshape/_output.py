"""The library's output as a bytes object, without holding a large output twice.

`ctypes.string_at` copies the whole output while the library's buffer still holds it, so a 100 MB
result would briefly take 200 MB. A large output is instead copied into a bytes object made with
PyBytes_FromStringAndSize(NULL, n) (the C API's way to fill a bytes object before anyone sees it)
a chunk at a time, and after each chunk the pages of the library's buffer that were copied are
handed back to the system with madvise(MADV_DONTNEED): the buffer is freed right after, and
nothing reads those pages again. Peak memory is then the output once, plus one chunk.

Without CPython's C API or Linux's madvise, the output is copied whole, as before.
"""

import ctypes
import mmap
import sys

#: Outputs below this are copied whole: holding them twice for a moment costs little.
CHUNKED_FROM = 16 << 20
CHUNK = 8 << 20
_PAGE = mmap.PAGESIZE
_MADV_DONTNEED = 4  # Linux's value (mmap.MADV_DONTNEED where Python has it)

try:
    _new_bytes = ctypes.pythonapi.PyBytes_FromStringAndSize
    _new_bytes.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
    _new_bytes.restype = ctypes.py_object
    _bytes_address = ctypes.pythonapi.PyBytes_AsString
    _bytes_address.argtypes = [ctypes.py_object]
    _bytes_address.restype = ctypes.c_void_p
    _madvise = ctypes.CDLL(None, use_errno=True).madvise
    _madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    _madvise.restype = ctypes.c_int
    CHUNKED = sys.platform.startswith("linux")
except (AttributeError, OSError):
    CHUNKED = False


def take(address: int, length: int) -> bytes:
    """The `length` bytes at `address`, which belong to a buffer the caller frees right after.

    For a large output the buffer's pages are released as they are copied, so the buffer must not
    be read again: only freed.
    """
    if not CHUNKED or length < CHUNKED_FROM:
        return ctypes.string_at(address, length)
    result = _new_bytes(None, length)
    target = _bytes_address(result)
    released = -(-address // _PAGE) * _PAGE  # the first whole page of the buffer
    done = 0
    while done < length:
        size = min(CHUNK, length - done)
        ctypes.memmove(target + done, address + done, size)
        done += size
        end = (address + done) // _PAGE * _PAGE  # pages wholly copied, up to here
        if end > released:
            _madvise(released, end - released, _MADV_DONTNEED)  # a failure only keeps the pages
            released = end
    return result  # type: ignore[no-any-return]
