"""Hostile values inside well-framed chunks (right lengths and checksums): every case issue 17 lists, each
refused in one line naming the file, the chunk's byte offset and the key path, exit status 2, promptly; then a
short seeded fuzz over every chunk kind and every command that reads these files."""
import time

import msgpack
import pytest

from benchmarks.fuzz_saves import (REPLAY_MAGIC, SNAPSHOT_MAGIC, fuzz, join, make_good, outcome, replay_commands,
                                   run_cli, set_world, split, world_of)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    replay, snap = make_good(str(folder))
    return open(replay, "rb").read(), open(snap, "rb").read()


def first(chunks, kind):
    return next(i for i, (k, _b) in enumerate(chunks) if k == kind)


def first_request(chunks, op="submit", kind=None):
    for k, body in chunks:
        if k == b"T":
            for _tick, reqs, _h in body:
                for req in reqs:
                    if req[0] == op and (kind is None or req[2] == kind):
                        return req
    raise AssertionError("no such request")


def first_record(chunks, kind):
    for k, body in chunks:
        if k == b"D":
            for rec in body:
                if rec["kind"] == kind:
                    return rec
    raise AssertionError("no such record")


def edit_world(chunks, kind, fn):
    state = chunks[first(chunks, kind)][1]
    world = world_of(state)
    fn(world)
    set_world(state, world)


def team_column(value):
    def fn(world):
        ids, (teams,) = world[4]["Team"]
        import numpy as np
        arr = np.frombuffer(teams, dtype="<i8").copy()
        arr[0] = value
        world[4]["Team"][1][0] = arr.tobytes()
    return fn


def _keyframe(chunks, fn):
    fn(chunks[first(chunks, b"K")][1])


def _set(d, key, value):
    d[key] = value


def ledger_row_with_data(chunks):
    """A keyframe whose ledger holds an active action (the second keyframe, mid-match)."""
    ks = [i for i, (k, _b) in enumerate(chunks) if k == b"K"]
    state = chunks[ks[-1]][1]
    world = world_of(state)
    assert world[5][1], "the mid-match keyframe should hold active actions"
    return state, world


def reservation_list_key(chunks):
    state, world = ledger_row_with_data(chunks)
    world[5][1][0][12] = [[[1, 2], True]]
    set_world(state, world)


def ledger_missing_data(chunks):
    state, world = ledger_row_with_data(chunks)
    row = world[5][1][0]                         # a reload under way, without the ticks it has left
    row[1], row[7], row[12], row[13] = "reload", "started", [], {}
    set_world(state, world)


def ledger_row_missing_field(chunks):
    state, world = ledger_row_with_data(chunks)
    del world[5][1][0][13]
    set_world(state, world)


REPLAY_CASES = {
    "header mods an int": (lambda c: _set(c[0][1], "mods", 5), "header.mods"),
    "header commanders an int": (lambda c: _set(c[0][1], "commanders", 5), "header.commanders"),
    "header max ticks 1e9": (lambda c: _set(c[0][1], "max_ticks", 10 ** 9), "header.max_ticks"),
    "header max ticks a float": (lambda c: _set(c[0][1], "max_ticks", 1e9), "header.max_ticks"),
    "content hash a list": (lambda c: _set(c[0][1], "content_hash", [1, 2]), "header.content_hash"),
    "keyframe content hash a list": (lambda c: _keyframe(c, lambda k: _set(k, "content_hash", ["x"])),
                                     "keyframe.content_hash"),
    "move x NaN": (lambda c: _set(first_request(c, kind="move")[5], "x", float("nan")), ".params.x"),
    "move x a string": (lambda c: _set(first_request(c, kind="move")[5], "x", "abc"), ".params.x"),
    "order region beyond 64 bits": (lambda c: _set(first_request(c, kind="order")[5], "region", (1 << 64) - 1),
                                    ".params.region"),
    "rng beyond 64 bits": (lambda c: edit_world(c, b"K", lambda w: w[1].__setitem__(4, (1 << 64) - 1)),
                           "world.rng.uinteger"),
    "rng state beyond 128 bits": (lambda c: edit_world(c, b"K", lambda w: w[1].__setitem__(1, "0x" + "f" * 40)),
                                  "world.rng.state"),
    "team column 99": (lambda c: edit_world(c, b"K", team_column(99)), "Team"),
    "team column -1": (lambda c: edit_world(c, b"K", team_column(-1)), "Team"),
    "winner 7": (lambda c: _keyframe(c, lambda k: (_set(k, "over", True), _set(k, "winner", 7))), "winner"),
    "negative keyframe tick": (lambda c: _keyframe(c, lambda k: _set(k, "tick", -5)), "keyframe.tick"),
    "keyframe tick out of order": (lambda c: _keyframe(c, lambda k: _set(k, "tick", 7)), "keyframe.tick"),
    "ledger reservation with a list key": (reservation_list_key, "reservations"),
    "ledger row missing a field": (ledger_row_missing_field, "ledger.active"),
    "ledger rows missing data keys": (ledger_missing_data, "cannot run"),
    "decision record missing a key": (lambda c: first_record(c, "npc").pop("choice"), "decisions["),
    "decision record str for a number": (lambda c: _set(first_record(c, "commander"), "value", "high"),
                                         "decisions["),
    "decision record timestamp": (lambda c: _set(first_record(c, "commander"), "profile", msgpack.Timestamp(1, 0)),
                                  "decisions["),
    "a tick missing in the middle": (lambda c: c[first(c, b"T")][1].pop(3), "tick 3 is missing"),
    "a request of unknown kind": (lambda c: _set(first_request(c, kind="move"), 2, "teleport"), "unknown action"),
}


@pytest.mark.parametrize("case", sorted(REPLAY_CASES))
def test_hostile_replay_values_are_refused_in_one_line(good, tmp_path, case):
    mutate, where = REPLAY_CASES[case]
    chunks = split(good[0], REPLAY_MAGIC)
    mutate(chunks)
    path = tmp_path / "bad.rtsreplay"
    path.write_bytes(join(chunks, REPLAY_MAGIC))
    at_run_time = "cannot run" in where or "unknown action" in where
    refused = 0
    for argv in replay_commands(str(path), 90, 30):
        started = time.perf_counter()
        rc, _out, err = run_cli(argv)
        assert time.perf_counter() - started < 60, f"{argv[0]} took too long"
        if at_run_time and outcome(rc, err) == "ok":
            continue        # found when the bad part is re-simulated, which not every command does
        assert outcome(rc, err) == "refused", (argv, rc, err)
        refused += 1
        line = err.strip().splitlines()[-1]
        assert line.startswith(f"error: {path}: ") and where in line, line
        if not at_run_time:
            assert "chunk at byte " in line, line
    assert refused


def test_last_tick_chunk_removed_is_named_in_a_warning(good, tmp_path):
    chunks = split(good[0], REPLAY_MAGIC)
    last_t = max(i for i, (k, _b) in enumerate(chunks) if k == b"T")
    lost = chunks[last_t][1][0][0]
    del chunks[last_t]
    path = tmp_path / "cut.rtsreplay"
    path.write_bytes(join(chunks, REPLAY_MAGIC))
    rc, out, err = run_cli(["replay", str(path), "--verify"])
    assert rc == 0 and out.startswith("verified ")
    assert err.startswith("warning: ") and f"ticks {lost} to 119 are missing" in err, err


SNAPSHOT_CASES = {
    "team column 99": (lambda s: edit_world([[b"S", s]], b"S", team_column(99)), "Team"),
    "winner 7": (lambda s: (_set(s, "over", True), _set(s, "winner", 7)), "snapshot.winner"),
    "max ticks 2^62": (lambda s: _set(s, "max_ticks", 1 << 62), "snapshot.max_ticks"),
    "content hash a list": (lambda s: _set(s, "content_hash", [1]), "snapshot.content_hash"),
    "seed beyond 64 bits": (lambda s: _set(s, "seed", -1), "snapshot.seed"),
    "world tick NaN": (lambda s: edit_world([[b"S", s]], b"S", lambda w: w.__setitem__(0, float("nan"))),
                       "world.tick"),
    "a reflex post not a bool": (lambda s: s["deciders"].__setitem__("fields", {"Stance": [[1, 1, 2.5, 4.0]]}),
                                 "deciders.fields.Stance: row 0: Stance.anchored should be bool, got int"),
    "a reflex post of no entity": (lambda s: s["deciders"].__setitem__("fields", {"Stance": [[99999, True, 1.0, 1.0]]}),
                                   "deciders.fields.Stance: entity 99999 has no Stance"),
    "decider fields of a type without any": (lambda s: s["deciders"].__setitem__("fields", {"Team": [[1, 2]]}),
                                             "deciders.fields.Team: 'Team' has no decider fields"),
}


@pytest.mark.parametrize("case", sorted(SNAPSHOT_CASES))
def test_hostile_snapshot_values_are_refused_in_one_line(good, tmp_path, case):
    mutate, where = SNAPSHOT_CASES[case]
    chunks = split(good[1], SNAPSHOT_MAGIC)
    mutate(chunks[0][1])
    path = tmp_path / "bad.rtssave"
    path.write_bytes(join(chunks, SNAPSHOT_MAGIC))
    rc, _out, err = run_cli(["match", "--load", str(path), "--ticks", "60"])
    assert outcome(rc, err) == "refused", (rc, err)
    assert err.startswith(f"error: {path}: chunk at byte 8: ") and where in err, err


def test_a_damaged_length_is_corruption_not_truncation(good, tmp_path):
    data = bytearray(good[0])
    pos = 8 + 9 + int.from_bytes(data[9:13], "little")        # the first keyframe's header, after the H chunk
    assert data[pos:pos + 1] == b"K"
    data[pos + 4] ^= 0x01                                       # its length grows by 16 MiB, past the end
    path = tmp_path / "damaged.rtsreplay"
    path.write_bytes(bytes(data))
    rc, _out, err = run_cli(["replay", str(path), "--verify"])
    assert rc == 2 and f"corrupt at byte {pos}" in err and "truncated" not in err, err
    cut = tmp_path / "cut.rtsreplay"
    cut.write_bytes(good[0][: pos + 200])
    rc, _out, err = run_cli(["replay", str(cut), "--verify"])
    assert "truncated" in err, err


def test_short_fuzz_of_every_chunk_kind_finds_nothing():
    result = fuzz(cases=40, seed=17)
    assert not result["findings"], "\n".join(result["findings"])
    assert result["counts"].get("refused", 0) > 10      # the fuzzer does produce bad files


def test_diff_and_verify_dir_read_hostile_replays_without_a_traceback(good, tmp_path):
    """The readers main added after the streamed replays (rts diff, rts verify DIR) go through the same checks."""
    chunks = split(good[0], REPLAY_MAGIC)
    REPLAY_CASES["a tick missing in the middle"][0](chunks)
    folder = tmp_path / "bad"
    folder.mkdir()
    path = folder / "bad.rtsreplay"
    path.write_bytes(join(chunks, REPLAY_MAGIC))
    ok = tmp_path / "good.rtsreplay"
    ok.write_bytes(good[0])
    rc, _out, err = run_cli(["diff", str(ok), str(path)])
    assert outcome(rc, err) == "refused" and "tick 3 is missing" in err, (rc, err)
    rc, out, err = run_cli(["diff", str(ok), str(ok)])
    assert outcome(rc, err) == "ok" and "states: identical" in out and "decisions: all" in out, (rc, out, err)
    rc, out, err = run_cli(["verify", str(folder), "--workers", "1", "--no-progress"])
    assert rc == 1 and "Traceback" not in out + err and "tick 3 is missing" in out + err, (rc, out, err)


def test_a_replay_closed_before_its_match_ends_reads_back(tmp_path):
    """The end record of an unfinished match (the replay window's recordings, a capped run) has no reason."""
    from content.loader import load_content
    from game.world import World
    from saves.replay import ReplayRecorder, read_replay
    world = World(load_content(), "skirmish", 4)
    rec = ReplayRecorder(tmp_path / "r.rtsreplay", world)
    for _ in range(20):
        world.step()
        rec.after_tick(world)
    rec.close(world)
    world.close()
    replay = read_replay(tmp_path / "r.rtsreplay")
    assert replay.end["reason"] is None and replay.end["ticks"] == 20 and replay.warning is None
