"""The store's compressed bytes: zlib streams (RFC 1950), as every store since the first holds them.

They are made by ISA-L (`isal`, Intel's deflate for x86 and ARM) at its level 1 rather than by zlib: the
same format, so `zlib.decompress` (any reader of the database, with or without iolab) reads them, and
iolab reads with zlib what older stores hold. ISA-L makes them 2-3 times faster and a little smaller: on
fio-plot's logs (two columns of ~560 bytes a log) 12 µs a column against zlib's 27 µs at its level 1, 1%
fewer bytes; on 1,000 json+ outputs (~14 KB each) 26 µs a file against 71 µs, 7% fewer bytes. The bytes
differ from zlib's, the content does not (tests/store/test_deflate.py; every table of a store imported
either way compared row by row, blobs decompressed).
"""

from __future__ import annotations

import zlib

from isal import isal_zlib

LEVEL = 1  # ISA-L's levels are 0-3; 0 is 5x faster again on a log's columns but keeps 50% more bytes


def compress(data: bytes) -> bytes:
    """`data` as a zlib stream."""
    return isal_zlib.compress(data, LEVEL)


def decompress(blob: bytes) -> bytes:
    """The bytes of a zlib stream, whichever deflate made it (zlib's own reader: the one every store was
    written for)."""
    return zlib.decompress(blob)
