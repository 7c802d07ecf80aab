"""The framing shared by snapshot and replay files, and the guards against bad files.

A file is an 8-byte magic followed by chunks::

    kind (1 byte, ASCII) | length (u32 LE) | crc32 of body (u32 LE) | body (length bytes)

A body is msgpack, optionally zlib-compressed (kinds in ``COMPRESSED``).
Reading never trusts the file: lengths are capped before anything is
allocated, decompression is bounded, msgpack is unpacked with size limits and
no extension types, and decoded values are type-checked by the caller via
``expect``. Nothing in a file is ever executed.
"""
from __future__ import annotations

import struct
import zlib

import msgpack

MAX_CHUNK = 64 << 20          # no chunk body above 64 MiB
MAX_INFLATED = 256 << 20      # a compressed body may not inflate beyond this
HEADER = struct.Struct("<cII")
COMPRESSED = frozenset(b"KSD")  # keyframes, snapshots and decision records


class SaveError(Exception):
    """A bad save or replay file. ``str()`` is one line naming the file."""

    def __init__(self, path, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


class Truncated(SaveError):
    """The file ends inside a chunk (e.g. the recorder was killed)."""


def pack_body(kind: bytes, obj) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    if kind[0] in COMPRESSED:
        body = zlib.compress(body, 1)
    return body


def frame(kind: bytes, obj) -> bytes:
    body = pack_body(kind, obj)
    return HEADER.pack(kind, len(body), zlib.crc32(body)) + body


def unpack_body(path, kind: bytes, body: bytes):
    if kind[0] in COMPRESSED:
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(body, MAX_INFLATED)
        except zlib.error as exc:
            raise SaveError(path, f"corrupt compressed chunk: {exc}") from None
        if inflater.unconsumed_tail:
            raise SaveError(path, "chunk inflates beyond the size limit")
    try:
        # unpackb caps every str/bin/array/map length by the body size, so a lying
        # length prefix inside the msgpack data cannot make it allocate more than the file holds
        return msgpack.unpackb(body, raw=False, strict_map_key=True, use_list=True, ext_hook=_no_ext)
    except SaveError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException, msgpack.ExtraData) as exc:
        raise SaveError(path, f"undecodable chunk: {type(exc).__name__}") from None


def _no_ext(code, data):
    raise ValueError("extension types are not allowed")


def read_chunks(path, data: bytes, magic: bytes):
    """Yield (kind, offset, decoded body). Raises SaveError; Truncated when the data ends mid-chunk."""
    if not data:
        raise SaveError(path, "file is empty")
    if len(data) < len(magic) or data[:len(magic)] != magic:
        if len(data) < len(magic) and magic.startswith(data):
            raise Truncated(path, "file is truncated inside its header")
        raise SaveError(path, f"not a {magic[:7].decode(errors='replace')} file (wrong magic bytes)")
    pos = len(magic)
    while pos < len(data):
        if len(data) - pos < HEADER.size:
            raise Truncated(path, f"file is truncated at byte {pos} (incomplete chunk header)")
        kind, length, crc = HEADER.unpack_from(data, pos)
        if length > MAX_CHUNK:
            raise SaveError(path, f"chunk at byte {pos} claims {length} bytes (limit {MAX_CHUNK}); file is corrupt")
        start = pos + HEADER.size
        if start + length > len(data):
            raise Truncated(path, f"file is truncated at byte {pos} (chunk needs {length} bytes, "
                                  f"{len(data) - start} left)")
        body = data[start:start + length]
        if zlib.crc32(body) != crc:
            raise SaveError(path, f"chunk at byte {pos} fails its checksum; file is corrupt")
        yield kind, pos, unpack_body(path, kind, body)
        pos = start + length


def expect(path, value, kind, what: str):
    """Type-check a decoded value: kind is a type or tuple of types (bool is never an int here)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = "/".join(k.__name__ for k in kinds)
        raise SaveError(path, f"{what} should be {names}, got {type(value).__name__}")
    return value


def read_file(path, limit: int = 1 << 30) -> bytes:
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise SaveError(path, "no such file") from None
    except IsADirectoryError:
        raise SaveError(path, "is a directory, not a file") from None
    except OSError as exc:
        raise SaveError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise SaveError(path, f"file is larger than {limit} bytes")
    return data
