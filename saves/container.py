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

import os
import struct
import zlib

import msgpack

MAX_CHUNK = 64 << 20          # no chunk body above 64 MiB
MAX_INFLATED = 32 << 20       # a compressed body may not inflate beyond this
INFLATE_BASE = 64 << 20       # a whole file may inflate to INFLATE_BASE + INFLATE_RATIO x its size, no more
INFLATE_RATIO = 32
MAX_CONTAINERS = 4_000_000    # maps and lists one chunk may decode to (at most ~64 bytes of memory each)
KINDS = frozenset(b"HKTDCES")
# the bytes that can start a small map or list (fixmap, fixarray, array16/32, map16/32): counting them bounds the
# containers a body can decode to from above (they also occur inside strings and binary data, so it over-counts)
_NOT_CONTAINER = bytes(b for b in range(256) if not (0x80 <= b <= 0x9f or 0xdc <= b <= 0xdf))
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


class InflateBudget:
    """The bytes a whole file may inflate to: ``INFLATE_BASE + INFLATE_RATIO * file size`` (a file of many
    chunks that each stay under ``MAX_INFLATED`` is refused once their sum passes it)."""

    def __init__(self, file_size: int):
        self.left = INFLATE_BASE + INFLATE_RATIO * file_size
        self.limit = self.left

    def spend(self, path, pos: int, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise SaveError(path, f"chunk at byte {pos}: the file inflates beyond {self.limit >> 20} MiB in all "
                                  f"(the limit for a file of its size); refused")


def pack_body(kind: bytes, obj) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    if kind[0] in COMPRESSED:
        body = zlib.compress(body, 1)
    return body


def frame(kind: bytes, obj) -> bytes:
    body = pack_body(kind, obj)
    return HEADER.pack(kind, len(body), zlib.crc32(body)) + body


def unpack_body(path, kind: bytes, body: bytes, pos: int | None = None, budget: InflateBudget | None = None):
    where = "" if pos is None else f" at byte {pos}"
    if kind[0] in COMPRESSED:
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(body, MAX_INFLATED)
        except zlib.error as exc:
            raise SaveError(path, f"corrupt compressed chunk{where}: {exc}") from None
        if inflater.unconsumed_tail:
            raise SaveError(path, f"chunk{where} inflates beyond the size limit ({MAX_INFLATED >> 20} MiB)")
        if budget is not None:
            budget.spend(path, pos, len(body))
    if len(body.translate(None, _NOT_CONTAINER)) > MAX_CONTAINERS:
        raise SaveError(path, f"chunk{where} holds more than {MAX_CONTAINERS} maps and lists; refused")
    try:
        # unpackb caps every str/bin/array/map length by the body size, so a lying
        # length prefix inside the msgpack data cannot make it allocate more than the file holds
        return msgpack.unpackb(body, raw=False, strict_map_key=True, use_list=True, ext_hook=_no_ext)
    except SaveError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException, msgpack.ExtraData) as exc:
        raise SaveError(path, f"undecodable chunk{where}: {type(exc).__name__}") from None


def _no_ext(code, data):
    raise ValueError("extension types are not allowed")


def short_chunk(path, pos: int, length: int, data, start: int) -> SaveError:
    """A chunk at ``pos`` claims more bytes than follow. If a whole, valid chunk lies among what does follow,
    the length was damaged ("corrupt at byte N"); else the file was cut short (``Truncated``). The search
    checksums at most twice the bytes left, so it is linear in the file's size."""
    left = len(data) - start
    budget = 2 * left + 1024
    p = start
    while p + HEADER.size <= len(data) and budget > 0:
        p = _next_kind(data, p, len(data) - HEADER.size + 1)
        if p < 0:
            break
        _kind, n, crc = HEADER.unpack_from(data, p)
        end = p + HEADER.size + n
        if end <= len(data) and n <= MAX_CHUNK:
            budget -= n
            if zlib.crc32(data[p + HEADER.size:end]) == crc:
                return SaveError(path, f"corrupt at byte {pos}: the chunk there claims {length} bytes, but a whole "
                                       f"chunk starts at byte {p} ({len(data) - pos} bytes follow)")
        p += 1
    return Truncated(path, f"file is truncated at byte {pos} (chunk needs {length} bytes, {left} left)")


def _next_kind(data, p: int, end: int) -> int:
    best = -1
    for k in KINDS:
        i = data.find(bytes([k]), p, end)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def read_chunks(path, data: bytes, magic: bytes, budget: InflateBudget | None = None):
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
        if kind[0] not in KINDS:
            raise SaveError(path, f"chunk at byte {pos} has unknown kind {kind!r}; file is corrupt")
        if start + length > len(data):
            raise short_chunk(path, pos, length, data, start)
        body = data[start:start + length]
        if zlib.crc32(body) != crc:
            raise SaveError(path, f"chunk at byte {pos} fails its checksum; file is corrupt")
        yield kind, pos, unpack_body(path, kind, body, pos, budget)
        pos = start + length


def checked(path, pos, schema, value, at: str):
    """``schema.check(value)`` (saves/schema.py), a misfit refused in one line naming the chunk's offset."""
    from saves.schema import SchemaError
    try:
        return schema.check(value, at)
    except SchemaError as exc:
        where = "" if pos is None else f"chunk at byte {pos}: "
        raise SaveError(path, f"{where}{exc}") from None


def expect(path, value, kind, what: str):
    """Type-check a decoded value: kind is a type or tuple of types (bool is never an int here)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        names = "/".join(k.__name__ for k in kinds)
        raise SaveError(path, f"{what} should be {names}, got {type(value).__name__}")
    return value


def check_regular(path) -> int:
    """The size of ``path``, a regular file; SaveError for a missing file, a folder, a FIFO or a device (which
    could block a reader forever or never end)."""
    import stat
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SaveError(path, "no such file") from None
    except OSError as exc:
        raise SaveError(path, f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise SaveError(path, "is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise SaveError(path, "is not a regular file (a pipe, socket or device); refused")
    return st.st_size


def read_file(path, limit: int = 1 << 30) -> bytes:
    check_regular(path)
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
