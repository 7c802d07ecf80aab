"""Replays: a header, the ledger's processed requests per tick, sync hashes, and keyframes.

File layout (see saves/container.py for the chunk framing)::

    RTSRPLY\\0
    H  header: format, game version, content hash, scenario, seed, max ticks, controllers, settings
    K  keyframe: a full snapshot (the first one is the starting state)
    T  ticks: [[tick, requests, sync hash or None], ...]   (about one second per chunk)
    D  decisions: every decider's decision records of those ticks, in their wire form (ai/records.py)
    C  content change: [tick, content hash] when a hot reload put new content in force
    ...
    E  end: the final summary

The recorder appends to ``FILE.part`` and flushes a chunk every second of game
time, so a crash loses at most the last second; ``close()`` renames the
finished file into place atomically. A reader keeps every complete chunk of a
truncated file and says so in ``warning``.

Replaying re-applies the recorded requests at their ticks with every decider
switched off: no AI or player is consulted, the world only re-runs the host.
"""
from __future__ import annotations

import os
import re
import zlib
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field

import esper

from components import ROW_OF
from ai.records import RecordError, from_wire, wire_key
from components.columns import decode_columns
from game import GAME_VERSION
from game.synchash import sync_hash
from saves.container import (HEADER, KINDS, MAX_CHUNK, InflateBudget, SaveError, Truncated, check_regular, checked,
                             frame, short_chunk, unpack_body)
from saves.schema import CHANGE, DECISIONS, END, SNAPSHOT, TICKS
from saves.schema import HEADER as HEADER_SCHEMA
from saves.snapshot import check_snapshot, restore_world, snapshot_state, world_parts

REPLAY_MAGIC = b"RTSRPLY\x00"
MAX_FILE = 1 << 30              # the largest replay read
#: 6: keyframes are version-5 snapshots (a brain keeps its think slot); 5: version-4 ones (a memory keeps its squad order); 4: version-3 ones (fog of war), and
#: commander records say what they knew
REPLAY_VERSION = 6


class ReplayRecorder:
    def __init__(self, path, world, *, keyframe_every: int = 150, hash_every: int = 5, flush_every: int = 30,
                 mods: list[str] | None = None):
        self.path = str(path)
        self.part = self.path + ".part"
        self.keyframe_every = max(1, int(keyframe_every))
        self.hash_every = max(1, int(hash_every))
        self.flush_every = max(1, int(flush_every))
        self.pending: list[list] = []
        self.decisions: list[dict] = []
        self.changes_seen = len(world.content_changes)
        world.decisions.collect = True
        self.fh = open(self.part, "wb")
        header = {
            "format": REPLAY_VERSION, "game": GAME_VERSION, "content_hash": world.content.content_hash,
            "scenario": world.scenario_id, "seed": world.seed, "max_ticks": world.max_ticks,
            "start_tick": world.tick, "controllers": list(world.controllers), "commanders": list(world.commanders),
            "strategies": list(world.strategies), "difficulties": list(world.difficulties),
            "mods": list(mods or []),
            "keyframe_every": self.keyframe_every, "hash_every": self.hash_every,
        }
        if world.timings:
            header["timings"] = True     # its commander records hold wall-clock times: two runs differ
        self.fh.write(REPLAY_MAGIC + frame(b"H", header))
        self._keyframe(world)

    def _write(self, kind: bytes, obj) -> None:
        self.fh.write(frame(kind, obj))
        self.fh.flush()

    def _keyframe(self, world) -> None:
        self.flush()
        self._write(b"K", snapshot_state(world))

    def flush(self) -> None:
        if self.pending:
            self._write(b"T", self.pending)
            self.pending = []
        if self.decisions:
            self._write(b"D", self.decisions)
            self.decisions = []

    def after_tick(self, world) -> None:
        """Call after every ``world.step()``: records what the ledger processed in that tick."""
        tick = world.tick - 1
        digest = sync_hash(world) if world.tick % self.hash_every == 0 or world.over else None
        self.pending.append([tick, world.ledger.tick_log, digest])
        self.decisions.extend(rec.to_wire() for rec in world.decisions.take())
        if len(world.content_changes) > self.changes_seen:
            self.flush()
            for change in world.content_changes[self.changes_seen:]:
                self._write(b"C", change)
            self.changes_seen = len(world.content_changes)
        if world.tick % self.keyframe_every == 0 and not world.over:
            self._keyframe(world)
        elif len(self.pending) >= self.flush_every:
            self.flush()

    def close(self, world) -> None:
        self.flush()
        self._write(b"E", world.summary())
        os.fsync(self.fh.fileno())
        self.fh.close()
        os.replace(self.part, self.path)

    def abort(self) -> None:
        """Stop writing; the .part file stays for inspection (it plays up to its last complete tick)."""
        if not self.fh.closed:
            self.flush()
            self.fh.close()


class ChunkFile:
    """Reads single chunks of a replay on demand, by byte offset, with the same guards as the first pass (the
    checksum again: a file changed since it was opened is refused, not trusted)."""

    def __init__(self, path: str, size: int):
        self.path, self.size = path, size

    def read(self, pos: int, kind: bytes):
        try:
            with open(self.path, "rb") as fh:
                fh.seek(pos)
                head = fh.read(HEADER.size)
                if len(head) == HEADER.size:
                    k, length, crc = HEADER.unpack(head)
                    if k == kind and length <= MAX_CHUNK:
                        body = fh.read(length)
                        if len(body) == length and zlib.crc32(body) == crc:
                            return unpack_body(self.path, kind, body, pos)
        except OSError as exc:
            raise SaveError(self.path, f"cannot read: {exc.strerror or exc}") from None
        raise SaveError(self.path, f"chunk at byte {pos} changed since the file was opened")


class _LRU(dict):
    """The last few decoded chunks (a replay holds only what it shows: a seek or a verify walks forwards)."""

    def __init__(self, size: int = 2):
        super().__init__()
        self.size = size

    def put(self, key, value):
        self[key] = value
        while len(self) > self.size:
            del self[next(iter(self))]
        return value

    def chunk(self, replay: "Replay", pos: int, kind: bytes, schema, what: str, build=None):
        """The chunk of ``kind`` at byte ``pos``, decoded and checked against ``schema`` (``build`` turns it into
        what is kept), from the cache or read now; a chunk that fails its check is never kept."""
        body = self.get(pos)
        if body is None:
            body = replay.chunks.read(pos, kind)
            checked(replay.path, pos, schema, body, what)
            body = self.put(pos, body if build is None else build(body))
        return body


class Keyframes(Mapping):
    """tick -> keyframe state, read from the file when asked for (the index holds offsets only)."""

    def __init__(self, replay: "Replay"):
        self.replay = replay
        self.offsets: dict[int, int] = {}
        self.hashes: dict[int, str] = {}
        self._cache = _LRU(1)

    def __getitem__(self, tick: int) -> dict:
        return self._cache.chunk(self.replay, self.offsets[tick], b"K", SNAPSHOT, "keyframe")

    def __iter__(self):
        return iter(self.offsets)

    def __len__(self):
        return len(self.offsets)


class _TickChunks:
    """The T chunks' first ticks and offsets; ``entry(tick)`` decodes the chunk holding it (one at a time)."""

    def __init__(self, replay: "Replay"):
        self.replay = replay
        self.first: list[int] = []
        self.offsets: list[int] = []
        self._cache = _LRU(2)

    def entry(self, tick: int):
        i = bisect_right(self.first, tick) - 1
        if i < 0 or tick > self.replay.last_tick:
            return None
        table = self._cache.chunk(self.replay, self.offsets[i], b"T", TICKS, "ticks",
                                  lambda body: {t: (reqs, digest) for t, reqs, digest in body})
        return table.get(tick)


class Requests:
    """``requests.get(tick, default)``: one tick's recorded requests, read from its chunk."""

    def __init__(self, ticks: _TickChunks):
        self._ticks = ticks

    def get(self, tick: int, default=None):
        entry = self._ticks.entry(tick)
        return default if entry is None else entry[0]


class Hashes:
    """``hashes.get(tick)``: the sync hash recorded after tick - 1 (or a later keyframe's own hash)."""

    def __init__(self, replay: "Replay"):
        self.replay = replay

    def get(self, tick: int, default=None):
        entry = self.replay._ticks.entry(tick - 1)
        if entry is not None and entry[1] is not None:
            return entry[1]
        if tick > self.replay.start_tick and tick in self.replay.keyframes.hashes:
            return self.replay.keyframes.hashes[tick]
        return default

    def __getitem__(self, tick: int) -> str:
        value = self.get(tick)
        if value is None:
            raise KeyError(tick)
        return value

    def __contains__(self, tick) -> bool:
        return type(tick) is int and self.get(tick) is not None

    def __iter__(self):
        """Every tick with a recorded hash, in order, reading one tick chunk at a time."""
        replay = self.replay
        ticks = replay._ticks
        frames = sorted(t for t in replay.keyframes.hashes if t > replay.start_tick)
        k = 0
        last = -1
        for i, pos in enumerate(ticks.offsets):
            body = replay.chunks.read(pos, b"T")
            checked(replay.path, pos, TICKS, body, "ticks")
            for t, _reqs, digest in body:
                if t > replay.last_tick:
                    break
                while k < len(frames) and frames[k] <= t:
                    if frames[k] > last:
                        last = frames[k]
                        yield last
                    k += 1
                if digest is not None and t + 1 > last:
                    last = t + 1
                    yield last
        for t in frames[k:]:
            if t > last:
                last = t
                yield t


class Decisions:
    """The decision records, streamed chunk by chunk (``for rec in replay.decisions``) and looked up on demand
    (``replay.records``: the interface of ai/records.py's RecordIndex, without holding every record)."""

    def __init__(self, replay: "Replay"):
        self.replay = replay
        self.chunks: list[tuple[int, int, int]] = []      # (first tick, last tick, offset), in tick order
        self.first: dict[tuple[str, int], int] = {}        # (kind, key) -> the tick of its first record
        self.count = 0                                     # records in the file (counted by the first pass)
        self._cache = _LRU(4)

    def chunk(self, i: int) -> list:
        return self._cache.chunk(self.replay, self.chunks[i][2], b"D", DECISIONS, "decisions")

    def __iter__(self):
        for i in range(len(self.chunks)):
            yield from self.chunk(i)

    def __len__(self):
        return self.count

    def _rec(self, i: int, j: int, data):
        try:
            return from_wire(data)
        except RecordError as exc:
            raise SaveError(self.replay.path, f"chunk at byte {self.chunks[i][2]}: decisions[{j}].{exc}") from None

    def _matching(self, kind: str, key: int, tick: int):
        """Records of (kind, key) at or before ``tick``, latest first, scanning chunks backwards."""
        first = self.first.get((kind, key))
        if first is None or first > tick:
            return
        i = bisect_right([c[0] for c in self.chunks], tick) - 1
        while i >= 0 and self.chunks[i][1] >= first:
            body = self.chunk(i)
            for j in range(len(body) - 1, -1, -1):
                head = wire_key(body[j])
                if head is not None and head[0] == kind and head[1] == key and head[2] <= tick:
                    yield self._rec(i, j, body[j])
            i -= 1

    # -- RecordIndex's interface -------------------------------------------------------------------------------
    def keys(self, kind: str) -> list[int]:
        return sorted(key for k, key in self.first if k == kind)

    def first_tick(self, kind: str, key: int) -> int | None:
        return self.first.get((kind, key))

    def at(self, kind: str, key: int, tick: int):
        return next(self._matching(kind, key, tick), None)

    def around(self, kind: str, key: int, tick: int, before: int = 3) -> list:
        out = []
        for rec in self._matching(kind, key, tick):
            out.append(rec)
            if len(out) >= before:
                break
        return out[::-1]

    def all(self, kind: str) -> list:
        return list(self.each(kind))

    def each(self, kind: str):
        """The records of ``kind`` in (tick, key) order, as ``all`` lists them, decoded one tick at a time: the
        first pass checked that the file's decision ticks never go back, so only one tick's records are held."""
        group: list = []
        current = None
        for i in range(len(self.chunks)):
            for j, data in enumerate(self.chunk(i)):
                head = wire_key(data)
                if head is None or head[0] != kind:
                    continue
                if head[2] != current:
                    group.sort(key=lambda r: r[0])
                    yield from (r[1] for r in group)
                    group = []
                    current = head[2]
                group.append((head[1], self._rec(i, j, data)))
        group.sort(key=lambda r: r[0])
        yield from (r[1] for r in group)

    def ticks(self, kind: str) -> list[int]:
        return sorted(head[2] for data in self if (head := wire_key(data)) is not None and head[0] == kind)


class Replay:
    """An opened replay: its header, an index of its chunks (tick -> byte offset) and what the first pass found.
    Keyframes, requests, hashes and decision records are read from the file when asked for, so memory does not
    grow with the replay's length."""

    def __init__(self, path: str, header: dict, size: int = 0):
        self.path = path
        self.header = header
        self.chunks = ChunkFile(path, size)
        self.keyframes = Keyframes(self)
        self._ticks = _TickChunks(self)
        self.requests = Requests(self._ticks)
        self.hashes = Hashes(self)
        self.decisions = Decisions(self)
        self.records = self.decisions
        self.last_tick = -1                                  # last tick with complete records
        self.content_changes: list = []                      # [tick, content hash] of hot reloads
        self.end: dict | None = None
        self.warning: str | None = None

    def content_hashes(self) -> set:
        """Every content hash this replay was recorded under (the start's and each hot reload's)."""
        return {self.header.get("content_hash")} | {h for _t, h in self.content_changes}

    @property
    def start_tick(self) -> int:
        return min(self.keyframes)

    @property
    def end_state_tick(self) -> int:
        """world.tick after the last complete recorded tick."""
        return self.last_tick + 1 if self.last_tick >= 0 else self.start_tick


def read_replay(path) -> Replay:
    """Open a replay: one pass over the file checks every chunk's framing and schema (saves/schema.py) and the
    order of its ticks, and keeps only an index. Time is linear in the file's size; memory is one chunk."""
    path = str(path)
    size = check_regular(path)
    if size > MAX_FILE:
        raise SaveError(path, f"file is larger than {MAX_FILE} bytes")
    budget = InflateBudget(size)
    replay = None
    expected = None                   # the next tick a T record or a keyframe must name
    decided = 0                       # the tick of the last decision record read
    try:
        for kind, pos, body in stream_chunks(path, REPLAY_MAGIC, budget):
            if replay is None:
                if kind != b"H":
                    raise SaveError(path, "replay does not start with a header chunk")
                checked(path, pos, HEADER_SCHEMA, body, "header")
                replay = Replay(path, body, size)
                expected = body["start_tick"]
                continue
            if replay.end is not None:
                raise SaveError(path, f"chunk at byte {pos} follows the end record")
            if kind == b"K":
                check_snapshot(path, pos, body, "keyframe")
                if body["tick"] != expected:
                    raise SaveError(path, f"chunk at byte {pos}: keyframe.tick: is {body['tick']}, the recorded "
                                          f"ticks say {expected}")
                replay.keyframes.offsets[body["tick"]] = pos
                replay.keyframes.hashes[body["tick"]] = body["sync_hash"]
            elif kind == b"T":
                checked(path, pos, TICKS, body, "ticks")
                if not body:
                    continue
                for i, (tick, _reqs, _digest) in enumerate(body):
                    if tick != expected:
                        what = (f"tick {expected} is missing" if tick > expected else f"tick {tick} comes again")
                        raise SaveError(path, f"chunk at byte {pos}: ticks[{i}].tick: {what} (it says {tick} "
                                              f"after tick {expected - 1})")
                    expected += 1
                replay._ticks.first.append(body[0][0])
                replay._ticks.offsets.append(pos)
                replay.last_tick = expected - 1
            elif kind == b"D":
                checked(path, pos, DECISIONS, body, "decisions")
                lo = None
                for i, data in enumerate(body):
                    try:
                        from_wire(data)
                    except RecordError as exc:
                        raise SaveError(path, f"chunk at byte {pos}: decisions[{i}].{exc}") from None
                    k, key, tick = wire_key(data)
                    if tick < decided:
                        raise SaveError(path, f"chunk at byte {pos}: decisions[{i}].tick: {tick} comes after a "
                                              f"decision of tick {decided}")
                    lo = tick if lo is None else lo
                    decided = tick
                    replay.decisions.first.setdefault((k, key), tick)
                if body:
                    replay.decisions.chunks.append((lo, decided, pos))
                    replay.decisions.count += len(body)
            elif kind == b"C":
                checked(path, pos, CHANGE, body, "content change")
                replay.content_changes.append(body)
            elif kind == b"E":
                replay.end = checked(path, pos, END, body, "end")
            else:
                raise SaveError(path, f"unknown chunk kind {kind!r} at byte {pos}")
    except Truncated as exc:
        if replay is None or not replay.keyframes:
            raise SaveError(path, f"{exc.message}; nothing playable is left") from None
        replay.warning = (f"{exc.message}; playing the {replay.end_state_tick - replay.start_tick} "
                          f"complete ticks up to tick {replay.end_state_tick}")
    if replay is None:
        raise SaveError(path, "replay has no header")
    if not replay.keyframes:
        raise SaveError(path, "replay has no starting keyframe")
    if replay.end is None and replay.warning is None:
        replay.warning = f"replay has no end record (recording did not finish); playing up to tick {replay.end_state_tick}"
    elif replay.end is not None and replay.end["ticks"] != replay.end_state_tick:
        replay.warning = (f"the end record says the match ended at tick {replay.end['ticks']}, but the recorded "
                          f"ticks stop at tick {replay.end_state_tick} (ticks {replay.end_state_tick} to "
                          f"{replay.end['ticks'] - 1} are missing); playing up to tick {replay.end_state_tick}")
    return replay


def stream_chunks(path, magic: bytes, budget: InflateBudget):
    """Like container.read_chunks, reading the file one chunk at a time instead of whole."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise SaveError(path, f"cannot read: {exc.strerror or exc}") from None
    with fh:
        head = fh.read(len(magic))
        if not head:
            raise SaveError(path, "file is empty")
        if head != magic:
            if len(head) < len(magic) and magic.startswith(head):
                raise Truncated(path, "file is truncated inside its header")
            raise SaveError(path, f"not a {magic[:7].decode(errors='replace')} file (wrong magic bytes)")
        pos = len(magic)
        while True:
            raw = fh.read(HEADER.size)
            if not raw:
                return
            if len(raw) < HEADER.size:
                raise Truncated(path, f"file is truncated at byte {pos} (incomplete chunk header)")
            kind, length, crc = HEADER.unpack(raw)
            if length > MAX_CHUNK:
                raise SaveError(path, f"chunk at byte {pos} claims {length} bytes (limit {MAX_CHUNK}); file is corrupt")
            if kind[0] not in KINDS:
                raise SaveError(path, f"chunk at byte {pos} has unknown kind {kind!r}; file is corrupt")
            body = fh.read(length)
            if len(body) < length:
                raise _short(path, pos, length, raw + body)
            if zlib.crc32(body) != crc:
                raise SaveError(path, f"chunk at byte {pos} fails its checksum; file is corrupt")
            yield kind, pos, unpack_body(path, kind, body, pos, budget)
            pos += HEADER.size + length


def _short(path, pos: int, length: int, tail: bytes) -> SaveError:
    """container.short_chunk on what is left of the file from ``pos``, offsets told as in the file."""
    err = short_chunk(path, 0, length, tail, HEADER.size)
    msg = err.message.replace("at byte 0", f"at byte {pos}")
    msg = re.sub(r"starts at byte (\d+)", lambda m: f"starts at byte {int(m.group(1)) + pos}", msg)
    return type(err)(path, msg)


def check_compatible(replay: Replay, content, force: bool) -> None:
    h = replay.header
    if h.get("format") != REPLAY_VERSION and not force:
        raise SaveError(replay.path, f"replay format {h.get('format')} is not supported (this game reads "
                                     f"{REPLAY_VERSION}); use --force to try anyway")
    if content.content_hash not in replay.content_hashes() and not force:
        raise SaveError(replay.path, f"replay was recorded with content {h.get('content_hash')}, the loaded content is "
                                     f"{content.content_hash} (mods used then: {h.get('mods') or 'none'}); "
                                     "use the same --mod options, or --force")


def apply_requests(world, requests: list, path: str = "replay") -> None:
    """Queue one tick's recorded requests in the ledger exactly as they were processed."""
    ledger = world.ledger
    for req in requests:
        if isinstance(req, list) and len(req) == 8 and req[0] == "submit":
            _, aid, kind, actor, target, params, source, timeout = req
            if aid != ledger.next_id:
                raise SaveError(path, f"tick {world.tick}: recorded action id {aid}, the ledger is at {ledger.next_id}")
            if not (isinstance(kind, str) and isinstance(actor, int) and isinstance(target, int)
                    and isinstance(params, dict) and isinstance(source, str) and isinstance(timeout, int)):
                raise SaveError(path, f"tick {world.tick}: malformed submission record")
            if kind not in ledger.executors:
                raise SaveError(path, f"tick {world.tick}: a request submits unknown action kind {kind[:40]!r}")
            ledger.submit(world.tick, kind, actor, target, params, source=source, timeout=timeout)
        elif isinstance(req, list) and len(req) == 3 and req[0] == "cancel" and isinstance(req[1], int):
            ledger.cancel(req[1], str(req[2]))
        else:
            raise SaveError(path, f"tick {world.tick}: malformed request record")


#: what a world restored from a hostile file can raise while it runs (a well-formed file never does): executor
#: data a file left out or filled with the wrong kind of value, an entity a component names that is gone
RUN_ERRORS = (KeyError, IndexError, TypeError, ValueError, OverflowError, AttributeError, ZeroDivisionError,
              RecursionError)


def step_loaded(world, path: str) -> None:
    """``world.step()`` for a world restored from a file: an error that only a hostile file can cause is
    refused in one line naming the file and the tick, instead of a traceback."""
    try:
        world.step()
    except RUN_ERRORS as exc:
        text = str(exc).splitlines()[0][:120] if str(exc) else ""
        raise SaveError(path, f"tick {world.tick}: the saved state cannot run ({type(exc).__name__}: {text}); "
                              "file is corrupt or was edited") from None


def world_at_keyframe(replay: Replay, content, tick: int, force: bool = False):
    starts = [k for k in replay.keyframes if k <= tick]
    if not starts:
        raise SaveError(replay.path, f"tick {tick} is before the replay starts (tick {replay.start_tick})")
    pos = replay.keyframes.offsets[max(starts)]
    state = replay.keyframes[max(starts)]
    # content reloaded during the match: a keyframe made under any content the replay recorded is fine, because
    # re-simulating runs no decider (what reloads change) on the same map
    known = replay.content_hashes()
    same_match = state.get("content_hash") in known and content.content_hash in known
    world = restore_world(replay.path, state, content, force=force, content_ok=same_match, pos=pos)
    world.deciders_enabled = False
    return world


def play_to(world, replay: Replay, tick: int) -> None:
    """Advance a replay-driven world until world.tick == tick (or the match ended)."""
    while world.tick < tick and not world.over:
        apply_requests(world, replay.requests.get(world.tick, []), replay.path)
        step_loaded(world, replay.path)


def seek(replay: Replay, content, tick: int, force: bool = False):
    """A world at ``tick``, restored from the nearest keyframe at or before it."""
    if tick > replay.end_state_tick:
        raise SaveError(replay.path, f"tick {tick} is past the end of the replay (tick {replay.end_state_tick})")
    world = world_at_keyframe(replay, content, tick, force)
    try:
        play_to(world, replay, tick)
    except BaseException:
        world.close()
        raise
    return world


def diff_states(expected: dict, actual: dict, limit: int = 12, labels: tuple = ("recorded", "replayed")) -> list[str]:
    """Human-readable entity/component differences between two snapshot states (``labels`` name the two)."""
    first, second = labels
    out = []
    expected = world_parts("replay", expected)
    actual = world_parts("replay", actual)
    exp_c, act_c = expected.components, actual.components

    def by_entity(cols):
        table = {}
        for name, column in cols.items():
            for eid, comp in decode_columns(name, column):
                table.setdefault(eid, {})[name] = list(ROW_OF[type(comp)](comp))
        return table

    exp_e, act_e = by_entity(exp_c), by_entity(act_c)
    for eid in sorted(set(exp_e) | set(act_e)):
        if eid not in act_e:
            out.append(f"entity {eid}: only in {first}" if labels[0] != "recorded"
                       else f"entity {eid}: missing in the re-simulation")
        elif eid not in exp_e:
            out.append(f"entity {eid}: only in {second}" if labels[0] != "recorded"
                       else f"entity {eid}: exists only in the re-simulation")
        else:
            for name in sorted(set(exp_e[eid]) | set(act_e[eid])):
                a, b = exp_e[eid].get(name), act_e[eid].get(name)
                if a != b:
                    out.append(f"entity {eid} {name}: {first} {a} vs {second} {b}")
        if len(out) >= limit:
            out.append("...")
            break
    if expected.rng != actual.rng:
        out.append("the RNG state differs")
    if expected.nav != actual.nav:
        out.append("the nav grid (doors, buildings, fields) differs")
    if expected.ledger != actual.ledger:
        out.append("the ledger's active actions differ")
    return out


@dataclass
class VerifyResult:
    ok: bool
    ticks: int
    first_bad_tick: int | None = None
    details: list[str] = field(default_factory=list)


def verify(replay: Replay, content, force: bool = False) -> VerifyResult:
    """Re-simulate from the start and compare every recorded sync hash."""
    world = world_at_keyframe(replay, content, replay.start_tick, force)
    last_good = world.tick
    try:
        end = replay.end_state_tick
        while world.tick < end and not world.over:
            apply_requests(world, replay.requests.get(world.tick, []), replay.path)
            step_loaded(world, replay.path)
            expected = replay.hashes.get(world.tick)
            if expected is None:
                continue
            if sync_hash(world) == expected:
                last_good = world.tick
                continue
            bad = world.tick
            earlier = (f"the previous recorded hash, after tick {last_good - 1}, matched" if last_good > replay.start_tick
                       else "no earlier hash was recorded")
            details = [f"sync hash after tick {bad - 1} differs ({earlier}; hashes are recorded every "
                       f"{replay.header.get('hash_every')} ticks)"]
            later = sorted(k for k in replay.keyframes if k >= bad)
            if later:
                play_to(world, replay, later[0])
                details.append(f"differences at keyframe tick {later[0]}:")
                details += ["  " + d for d in diff_states(replay.keyframes[later[0]], snapshot_state(world))]
            return VerifyResult(False, bad - replay.start_tick, bad - 1, details)
        return VerifyResult(True, world.tick - replay.start_tick)
    finally:
        world.close()


def state_summary(world) -> dict:
    """What `rts replay --to` prints: counts, hash and every unit's state at that tick."""
    from components import Ammo, Health, Position, Team, UnitKind
    world.activate()
    units = []
    for eid, (team, pos, health, kind, ammo) in sorted(esper.get_components(Team, Position, Health, UnitKind, Ammo)):
        action = world.ledger.current(eid)
        units.append({"entity": eid, "team": team.team, "unit": kind.kind, "x": round(pos.x, 2), "y": round(pos.y, 2),
                      "hp": round(health.hp, 1), "clip": ammo.clip,
                      "action": None if action is None else f"{action.kind}#{action.id} {action.state}"})
    summary = world.summary()
    summary["units"] = units
    return summary
