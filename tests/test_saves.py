"""Snapshots and replays: round trips, verification, seeking, divergence reports and every kind of bad file."""
import json
import re
import struct
import subprocess
import sys
import zlib

import msgpack
import pytest

from game.synchash import sync_hash
from game.world import World
from saves.container import HEADER, SaveError
from saves.replay import REPLAY_MAGIC, ReplayRecorder, read_replay, seek, verify
from saves.snapshot import SNAPSHOT_MAGIC, encode_snapshot, load_snapshot, save_snapshot


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True)


def record(content, path, scenario="duel", seed=1, ticks=None, **kw):
    world = World(content, scenario, seed)
    if ticks:
        world.max_ticks = ticks
    rec = ReplayRecorder(path, world, **kw)
    try:
        while not world.over:
            world.step()
            rec.after_tick(world)
        rec.close(world)
        return world.tick, sync_hash(world)
    finally:
        world.close()


def test_snapshot_round_trip_keeps_hash_and_continues_identically(content, tmp_path):
    world = World(content, "skirmish", 5)
    world.run(250)
    path = tmp_path / "mid.rtssave"
    save_snapshot(world, path)
    loaded = load_snapshot(path, content)
    try:
        assert sync_hash(loaded) == sync_hash(world)
        world.run(300)
        loaded.run(300)
        assert loaded.tick == world.tick == 550
        assert sync_hash(loaded) == sync_hash(world)
    finally:
        world.close()
        loaded.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_record_then_verify(content, tmp_path, seed):
    path = tmp_path / f"s{seed}.rtsreplay"
    ticks, final = record(content, path, "skirmish", seed, keyframe_every=90, hash_every=3)
    replay = read_replay(path)
    assert replay.warning is None and replay.end["sync_hash"] == final
    result = verify(replay, content)
    assert result.ok and result.ticks == ticks


def test_seek_equals_straight_run(content, tmp_path):
    path = tmp_path / "r.rtsreplay"
    record(content, path, "skirmish", 2, keyframe_every=100)
    replay = read_replay(path)
    for tick in (0, 99, 100, 257, 600):
        straight = World(content, "skirmish", 2)
        straight.run(tick)
        sought = seek(replay, content, tick)
        try:
            assert sought.tick == tick
            assert sync_hash(sought) == sync_hash(straight), tick
        finally:
            straight.close()
            sought.close()


def rewrite_first_submission(data: bytes, mutate) -> bytes:
    """Re-frame a replay with one tick chunk's first submission changed (checksums stay valid)."""
    out = bytearray(data[:len(REPLAY_MAGIC)])
    pos, done = len(REPLAY_MAGIC), False
    while pos < len(data):
        kind, length, _crc = HEADER.unpack_from(data, pos)
        body = data[pos + HEADER.size:pos + HEADER.size + length]
        if kind == b"T" and not done:
            entries = msgpack.unpackb(body)
            for entry in entries:
                subs = [r for r in entry[1] if r[0] == "submit" and r[2] == "attack"]
                if subs:
                    mutate(subs[0])
                    done = True
                    break
            body = msgpack.packb(entries, use_bin_type=True)
        out += HEADER.pack(kind, len(body), zlib.crc32(body)) + body
        pos += HEADER.size + length
    assert done
    return bytes(out)


def test_verify_names_divergent_tick_entities_and_components(content, tmp_path):
    path = tmp_path / "r.rtsreplay"
    record(content, path, "duel", 1, keyframe_every=60, hash_every=1)
    data = path.read_bytes()
    tampered = tmp_path / "bad.rtsreplay"

    def retarget(sub):
        sub[2] = "move"
        sub[5] = {"x": 2.5, "y": 2.5}

    tampered.write_bytes(rewrite_first_submission(data, retarget))
    proc = rts("replay", str(tampered), "--verify")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("divergence at tick ")
    entity_lines = [line for line in lines if re.match(r"\s+entity \d+ (Position|Mover): recorded \[.*\] vs replayed \[", line)]
    assert entity_lines, proc.stdout


def test_cli_record_verify_seek_save_load(tmp_path):
    rec = tmp_path / "m.rtsreplay"
    out = json.loads(rts("match", "--scenario", "duel", "--seed", "4", "--record", str(rec), "--json").stdout)
    assert not (tmp_path / "m.rtsreplay.part").exists()
    proc = rts("replay", str(rec), "--verify")
    assert proc.returncode == 0 and proc.stdout.strip() == f"verified {out['ticks']} ticks"
    seek_out = json.loads(rts("replay", str(rec), "--to", "200", "--json").stdout)
    straight = json.loads(rts("match", "--scenario", "duel", "--seed", "4", "--ticks", "200", "--json").stdout)
    assert seek_out["sync_hash"] == straight["sync_hash"] and seek_out["ticks"] == 200
    save = tmp_path / "s.rtssave"
    first = rts("match", "--scenario", "duel", "--seed", "4", "--save-at", "150", str(save), "--ticks", "400", "--json")
    assert first.returncode == 0 and save.exists()
    resumed = json.loads(rts("match", "--load", str(save), "--ticks", "400", "--json").stdout)
    assert resumed["sync_hash"] == json.loads(first.stdout)["sync_hash"]


def test_content_mismatch_refused_unless_forced(tmp_path):
    from tests.conftest import write_mod
    rec = tmp_path / "m.rtsreplay"
    assert rts("match", "--scenario", "duel", "--ticks", "60", "--record", str(rec)).returncode == 0
    mod = write_mod(tmp_path / "mod", {"units/rifleman.toml": 'id = "rifleman"\nhp = 120.0\n'})
    proc = rts("replay", str(rec), "--verify", "--mod", str(mod))
    assert proc.returncode == 2 and "recorded with content" in proc.stderr and "--force" in proc.stderr
    forced = rts("replay", str(rec), "--verify", "--mod", str(mod), "--force")
    # forced through, it plays: unit stats live in the keyframe's components, so the hp change cannot diverge it
    assert forced.returncode == 0 and forced.stdout.strip() == "verified 60 ticks", forced.stdout + forced.stderr


def test_format_version_refused(content, tmp_path):
    world = World(content, "duel", 1)
    state_bytes = encode_snapshot(world)
    world.close()
    body = msgpack.unpackb(zlib.decompress(state_bytes[len(SNAPSHOT_MAGIC) + HEADER.size:]))
    body["format"] = 99
    raw = zlib.compress(msgpack.packb(body, use_bin_type=True))
    path = tmp_path / "v.rtssave"
    path.write_bytes(SNAPSHOT_MAGIC + HEADER.pack(b"S", len(raw), zlib.crc32(raw)) + raw)
    with pytest.raises(SaveError, match="format 99 is not supported"):
        load_snapshot(path, content)


def test_truncated_replay_plays_what_is_complete(content, tmp_path):
    path = tmp_path / "r.rtsreplay"
    ticks, _ = record(content, path, "skirmish", 1, keyframe_every=120)
    data = path.read_bytes()
    cut = tmp_path / "cut.rtsreplay"
    cut.write_bytes(data[: len(data) * 2 // 3])
    replay = read_replay(cut)
    assert replay.warning and "truncated" in replay.warning
    assert 0 < replay.end_state_tick < ticks
    assert verify(replay, content).ok
    proc = rts("replay", str(cut), "--verify")
    assert proc.returncode == 0 and "warning:" in proc.stderr and proc.stdout.startswith("verified ")


def snapshot_bytes(content):
    world = World(content, "duel", 1)
    world.run(30)
    try:
        return encode_snapshot(world)
    finally:
        world.close()


BAD_FILES = {
    "empty": lambda good: b"",
    "wrong magic": lambda good: b"PK\x03\x04" + good[4:],
    "truncated": lambda good: good[: len(good) // 2],
    "bit flipped": lambda good: good[:60] + bytes([good[60] ^ 0x10]) + good[61:],
    "absurd length": lambda good: good[:8] + HEADER.pack(b"S", 0xFFFFFFF0, 0) + good[8 + HEADER.size:],
    "wrong types": lambda good: SNAPSHOT_MAGIC + HEADER.pack(b"S", len(b := zlib.compress(msgpack.packb(
        {"format": 1, "content_hash": "x", "scenario": 5}))), zlib.crc32(b)) + b,
    "not msgpack": lambda good: SNAPSHOT_MAGIC + HEADER.pack(b"S", 4, zlib.crc32(b"\xc1\xc1\xc1\xc1")) + b"\xc1\xc1\xc1\xc1",
    "header only": lambda good: good[:5],
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_snapshot_files_are_refused_in_one_line(content, tmp_path, kind):
    good = snapshot_bytes(content)
    path = tmp_path / "bad.rtssave"
    path.write_bytes(BAD_FILES[kind](good))
    with pytest.raises(SaveError) as info:
        load_snapshot(path, content, force=kind == "wrong types")
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)
    proc = rts("match", "--load", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error: ")


@pytest.mark.parametrize("kind", ["empty", "wrong magic", "bit flipped", "absurd length", "header only"])
def test_bad_replay_files_are_refused_in_one_line(content, tmp_path, kind):
    path = tmp_path / "good.rtsreplay"
    record(content, path, "duel", 1, ticks=90)
    good = path.read_bytes()
    bad = tmp_path / "bad.rtsreplay"
    mutate = BAD_FILES[kind]
    data = mutate(good)
    if kind == "absurd length":
        data = good[:8] + HEADER.pack(b"H", 0xFFFFFFF0, 0) + good[8 + HEADER.size:]
    bad.write_bytes(data)
    proc = rts("replay", str(bad), "--verify")
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_file_cannot_execute_code(content, tmp_path):
    """Extension types (msgpack's only hook for custom objects) are refused outright."""
    body = msgpack.packb({"format": 1, "x": msgpack.ExtType(1, b"os.system('touch pwned')")}, use_bin_type=True)
    raw = zlib.compress(body)
    path = tmp_path / "ext.rtssave"
    path.write_bytes(SNAPSHOT_MAGIC + HEADER.pack(b"S", len(raw), zlib.crc32(raw)) + raw)
    with pytest.raises(SaveError, match="undecodable"):
        load_snapshot(path, content)
    assert not (tmp_path / "pwned").exists()


def test_snapshot_of_1000_units_is_compact(content):
    from benchmarks.run import scaled_content
    big, sid = scaled_content(content, 1000)
    world = World(big, sid, 1)
    try:
        data = encode_snapshot(world)
    finally:
        world.close()
    assert len(data) <= 100 * 1024
    assert struct.unpack_from("<I", data, 9)[0] == len(data) - 8 - HEADER.size


def test_an_army_snapshot_keeps_what_its_calm_npcs_remember(content, tmp_path):
    """An army (calm NPCs on) saved mid-match goes on as if never stopped: the NPCs' memories, with the squad order
    each last perceived (``Memory.order_seen``, which the calm test reads), are restored; a memory reset on load
    would make some NPC decide on another tick and move the hash."""
    import esper

    from benchmarks.run import army_content
    from components import Memory
    scaled, sid = army_content(content, 300)
    world = World(scaled, sid, 2)
    world.run(160)
    path = tmp_path / "army.rtssave"
    save_snapshot(world, path)
    world.activate()
    kept = sorted((e, m.order_seen) for e, m in esper.get_component(Memory))
    loaded = load_snapshot(path, scaled)
    try:
        loaded.activate()
        assert sorted((e, m.order_seen) for e, m in esper.get_component(Memory)) == kept
        assert sum(seen >= 0 for _e, seen in kept) > 100             # the orders were perceived
        world.run(140)
        loaded.run(140)
        assert sync_hash(loaded) == sync_hash(world)
    finally:
        world.close()
        loaded.close()


def test_an_older_snapshot_loads_with_force_its_memories_taking_the_new_fields_defaults(content, tmp_path):
    """An older snapshot (as format 3 wrote it: its memories without ``order_seen``, its brains without ``slot``) is
    refused in one line, and with ``--force`` loads, every memory's ``order_seen`` at its default (-1: the NPC
    notices its squad's order when it next decides) and every brain's think slot at -1 (given again on the next
    tick: each NPC's rank in its team); missing trailing fields take their defaults. A column with more fields
    than the class is refused."""
    import esper

    from components import BrainState, Memory, Team
    world = World(content, "skirmish", 1)
    world.run(30)
    state_bytes = encode_snapshot(world)
    world.close()
    body = msgpack.unpackb(zlib.decompress(state_bytes[len(SNAPSHOT_MAGIC) + HEADER.size:]))
    memory = body["deciders"]["components"]["Memory"]
    brains = body["deciders"]["components"]["Brain"]
    assert len(memory[1]) == 8 and len(brains[1]) == 17
    memory[1] = memory[1][:7]                         # as format 3 wrote them
    brains[1] = brains[1][:16]
    body["format"] = 3

    def write(name, state):
        raw = zlib.compress(msgpack.packb(state, use_bin_type=True))
        path = tmp_path / name
        path.write_bytes(SNAPSHOT_MAGIC + HEADER.pack(b"S", len(raw), zlib.crc32(raw)) + raw)
        return path

    old = write("old.rtssave", body)
    with pytest.raises(SaveError, match="format 3 is not supported"):
        load_snapshot(old, content)
    loaded = load_snapshot(old, content, force=True)
    try:
        loaded.activate()
        mems = [m for _e, m in esper.get_component(Memory)]
        assert mems and all(m.order_seen == -1 for m in mems) and any(m.last_hp >= 0 for m in mems)
        assert all(b.slot == -1 for _e, b in esper.get_component(BrainState))
        loaded.run(30)
        for team in (0, 1):
            slots = [b.slot for _e, (b, t) in sorted(esper.get_components(BrainState, Team)) if t.team == team]
            assert slots == list(range(len(slots)))
    finally:
        loaded.close()
    memory[1] = memory[1][:7] + [memory[1][6], memory[1][6]]     # more columns than fields: refused, forced or not
    with pytest.raises(SaveError, match="Memory needs 8 field columns, got 9"):
        load_snapshot(write("odd.rtssave", body), content, force=True)
