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
from dataclasses import dataclass, field

import esper

from components import ROW_OF
from ai.records import wire_key
from components.columns import decode_columns
from game import GAME_VERSION
from game.synchash import sync_hash
from saves.container import SaveError, Truncated, expect, frame, read_chunks, read_file
from saves.snapshot import restore_world, snapshot_state, world_parts

REPLAY_MAGIC = b"RTSRPLY\x00"
REPLAY_VERSION = 4              # 4: keyframes are version-3 snapshots (fog of war); commander records say what they knew


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


@dataclass
class Replay:
    path: str
    header: dict
    keyframes: dict[int, dict] = field(default_factory=dict)
    requests: dict[int, list] = field(default_factory=dict)
    hashes: dict[int, str] = field(default_factory=dict)   # tick after which the hash was taken -> hash
    last_tick: int = -1                                      # last tick with complete records
    decisions: list = field(default_factory=list)            # decision records (wire form), in tick order
    content_changes: list = field(default_factory=list)      # [tick, content hash] of hot reloads

    def content_hashes(self) -> set:
        """Every content hash this replay was recorded under (the start's and each hot reload's)."""
        return {self.header.get("content_hash")} | {h for _t, h in self.content_changes}
    end: dict | None = None
    warning: str | None = None

    @property
    def start_tick(self) -> int:
        return min(self.keyframes)

    @property
    def end_state_tick(self) -> int:
        """world.tick after the last complete recorded tick."""
        return self.last_tick + 1 if self.last_tick >= 0 else self.start_tick


def read_replay(path) -> Replay:
    data = read_file(path)
    replay = None
    try:
        for kind, pos, body in read_chunks(path, data, REPLAY_MAGIC):
            if replay is None:
                if kind != b"H":
                    raise SaveError(path, "replay does not start with a header chunk")
                expect(path, body, dict, "header")
                for key, typ in (("format", int), ("content_hash", str), ("scenario", str), ("seed", int),
                                 ("start_tick", int), ("hash_every", int), ("keyframe_every", int)):
                    expect(path, body.get(key), typ, f"header.{key}")
                replay = Replay(str(path), body)
            elif kind == b"K":
                expect(path, body, dict, f"keyframe at byte {pos}")
                replay.keyframes[expect(path, body.get("tick"), int, "keyframe.tick")] = body
            elif kind == b"T":
                expect(path, body, list, f"tick chunk at byte {pos}")
                for entry in body:
                    if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], int)
                            and isinstance(entry[1], list) and (entry[2] is None or isinstance(entry[2], str))):
                        raise SaveError(path, f"tick record in chunk at byte {pos} is malformed")
                    tick, reqs, digest = entry
                    replay.requests[tick] = reqs
                    if digest is not None:
                        replay.hashes[tick + 1] = digest
                    replay.last_tick = max(replay.last_tick, tick)
            elif kind == b"D":
                expect(path, body, list, f"decision chunk at byte {pos}")
                for rec in body:
                    if wire_key(rec) is None:
                        raise SaveError(path, f"decision record in chunk at byte {pos} is malformed")
                replay.decisions.extend(body)
            elif kind == b"C":
                if not (isinstance(body, list) and len(body) == 2 and type(body[0]) is int and isinstance(body[1], str)):
                    raise SaveError(path, f"content change at byte {pos} is malformed")
                replay.content_changes.append(body)
            elif kind == b"E":
                replay.end = expect(path, body, dict, "end record")
            else:
                raise SaveError(path, f"unknown chunk kind {kind!r} at byte {pos}")
    except Truncated as exc:
        if replay is None or not replay.keyframes:
            raise SaveError(path, f"{exc.message}; nothing playable is left") from None
        replay.warning = (f"{exc.message}; playing the {replay.end_state_tick - replay.start_tick} "
                          f"complete ticks up to tick {replay.end_state_tick}")
    if replay is None:
        raise SaveError(path, "replay has no header")
    for k, state in replay.keyframes.items():   # a keyframe's own hash is one more checkpoint
        if k > replay.start_tick and isinstance(state.get("sync_hash"), str):
            replay.hashes.setdefault(k, state["sync_hash"])
    if not replay.keyframes:
        raise SaveError(path, "replay has no starting keyframe")
    if replay.end is None and replay.warning is None:
        replay.warning = f"replay has no end record (recording did not finish); playing up to tick {replay.end_state_tick}"
    return replay


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
            ledger.submit(world.tick, kind, actor, target, params, source=source, timeout=timeout)
        elif isinstance(req, list) and len(req) == 3 and req[0] == "cancel" and isinstance(req[1], int):
            ledger.cancel(req[1], str(req[2]))
        else:
            raise SaveError(path, f"tick {world.tick}: malformed request record")


def world_at_keyframe(replay: Replay, content, tick: int, force: bool = False):
    starts = [k for k in replay.keyframes if k <= tick]
    if not starts:
        raise SaveError(replay.path, f"tick {tick} is before the replay starts (tick {replay.start_tick})")
    state = replay.keyframes[max(starts)]
    # content reloaded during the match: a keyframe made under any content the replay recorded is fine, because
    # re-simulating runs no decider (what reloads change) on the same map
    known = replay.content_hashes()
    same_match = state.get("content_hash") in known and content.content_hash in known
    world = restore_world(replay.path, state, content, force=force, content_ok=same_match)
    world.deciders_enabled = False
    return world


def play_to(world, replay: Replay, tick: int) -> None:
    """Advance a replay-driven world until world.tick == tick (or the match ended)."""
    while world.tick < tick and not world.over:
        apply_requests(world, replay.requests.get(world.tick, []), replay.path)
        world.step()


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


def diff_states(expected: dict, actual: dict, limit: int = 12) -> list[str]:
    """Human-readable entity/component differences between two snapshot states."""
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
            out.append(f"entity {eid}: missing in the re-simulation")
        elif eid not in exp_e:
            out.append(f"entity {eid}: exists only in the re-simulation")
        else:
            for name in sorted(set(exp_e[eid]) | set(act_e[eid])):
                a, b = exp_e[eid].get(name), act_e[eid].get(name)
                if a != b:
                    out.append(f"entity {eid} {name}: recorded {a} vs replayed {b}")
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
            world.step()
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
