"""Replay and snapshot figures, each beside a baseline measured in the same run.

- verify: re-simulating a recorded 200-unit, 3-minute match from its replay, against the live match's own
  speed (the recording run) and against real time (30 ticks/s)
- seek: `seek(replay, tick)` through the nearest keyframe, against a straight run from tick 0
- snapshot: encode + decode time and size of a 1000-unit snapshot, against a plain msgpack dump of the
  same data (one dict per entity with component and field names)
- memory: the peak memory of verify, seek, explain and report on replays of 1, 5 and 20 game-minutes, against
  each other (streamed replays: it should not grow with the replay's length)
"""
from __future__ import annotations

import dataclasses
import os
import tempfile
import time

import esper
import msgpack

from benchmarks.run import scaled_content
from components import FIELDS
from content.loader import Content, load_content
from game.world import World
from saves.replay import ReplayRecorder, read_replay, seek, verify
from saves.snapshot import SNAPSHOT_MAGIC, encode_snapshot, restore_world, world_parts
from saves.container import read_chunks

MATCH_TICKS = 3 * 60 * 30


def long_match_content(content: Content, units: int, hp_scale: float) -> tuple[Content, str]:
    scaled, sid = scaled_content(content, units)
    tough = {uid: u.model_copy(update={"hp": u.hp * hp_scale}) for uid, u in scaled.units.items()}
    scenario = scaled.scenarios[sid].model_copy(update={"max_ticks": MATCH_TICKS})
    scenarios = dict(scaled.scenarios)
    scenarios[sid] = scenario
    return dataclasses.replace(scaled, units=tough, scenarios=scenarios), sid


def bench_verify(tmp: str, units: int = 200) -> dict:
    content, sid = long_match_content(load_content(), units, hp_scale=8.0)
    path = os.path.join(tmp, "bench.rtsreplay")
    world = World(content, sid, 1)
    rec = ReplayRecorder(path, world)
    start = time.perf_counter()
    while not world.over:
        world.step()
        rec.after_tick(world)
    live = time.perf_counter() - start
    rec.close(world)
    ticks = world.tick
    world.close()
    replay = read_replay(path)
    start = time.perf_counter()
    result = verify(replay, content)
    took = time.perf_counter() - start
    if not result.ok:
        raise RuntimeError(f"benchmark replay did not verify: {result.details}")
    seeks = []
    for frac in (0.13, 0.37, 0.61, 0.97):
        tick = int(ticks * frac)
        t0 = time.perf_counter()
        seek(replay, content, tick).close()
        t_seek = time.perf_counter() - t0
        t0 = time.perf_counter()
        straight = World(content, sid, 1)
        straight.run(tick)
        straight.close()
        seeks.append({"tick": tick, "seek_s": round(t_seek, 4), "straight_s": round(time.perf_counter() - t0, 4)})
    return {
        "units": units, "ticks": ticks, "replay_bytes": os.path.getsize(path),
        "live_s": round(live, 3), "verify_s": round(took, 3),
        "verify_realtime_x": round(ticks / 30.0 / took, 1), "verify_vs_live": round(live / took, 2),
        "target_realtime_x": 20, "seeks": seeks, "max_seek_s": max(s["seek_s"] for s in seeks), "target_seek_s": 0.5,
    }


def plain_dump(world) -> dict:
    world.activate()
    ents = []
    for eid in sorted(esper.get_entities()):
        ents.append({"id": eid, "components": {type(c).__name__: {f: getattr(c, f) for f in FIELDS[type(c)]}
                                               for c in esper.components_for_entity(eid)}})
    return {"tick": world.tick, "entities": ents}


def bench_snapshot(units: int = 1000, repeats: int = 20, ai: str = "scripted") -> dict:
    """Snapshot figures for ``units`` units. ``ai = "scripted"`` is the world the targets were set for (no
    decider state); ``"brain"`` adds every NPC's brain and memory to the snapshot."""
    content, sid = scaled_content(load_content(), units, ai=ai, commander="" if ai == "scripted" else None)
    world = World(content, sid, 1)
    world.run(60)
    try:
        n_entities = len(list(esper.get_entities()))
        t0 = time.perf_counter()
        for _ in range(repeats):
            data = encode_snapshot(world)
        enc = (time.perf_counter() - t0) / repeats
        t0 = time.perf_counter()
        for _ in range(repeats):
            state = next(read_chunks("bench", data, SNAPSHOT_MAGIC))[2]
            world_parts("bench", state)           # decoding includes the inner world bytes
        dec = (time.perf_counter() - t0) / repeats
        t0 = time.perf_counter()
        restore_world("bench", state, content).close()
        restore = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(repeats):
            plain = msgpack.packb(plain_dump(world), use_bin_type=True)
        plain_enc = (time.perf_counter() - t0) / repeats
        t0 = time.perf_counter()
        for _ in range(repeats):
            msgpack.unpackb(plain)
        plain_dec = (time.perf_counter() - t0) / repeats
    finally:
        world.close()
    return {
        "entities": n_entities, "bytes": len(data), "kib": round(len(data) / 1024, 1),
        "encode_ms": round(enc * 1000, 2), "decode_ms": round(dec * 1000, 2),
        "encode_decode_ms": round((enc + dec) * 1000, 2), "rebuild_world_ms": round(restore * 1000, 1),
        "plain_bytes": len(plain), "plain_kib": round(len(plain) / 1024, 1),
        "plain_encode_decode_ms": round((plain_enc + plain_dec) * 1000, 2),
        "target_ms": 10, "target_kib": 100,
    }


def run() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        return {"verify": bench_verify(tmp), "snapshot": bench_snapshot(),
                "snapshot_brains": bench_snapshot(ai="brain"), "memory": bench_replay_memory(tmp)}


def print_report(res: dict) -> None:
    v, s = res["verify"], res["snapshot"]
    print(f"replay verify: {v['units']} units, {v['ticks']} ticks ({v['ticks'] / 30:.0f} s of game time), "
          f"replay file {v['replay_bytes'] / 1024:.0f} KiB")
    print(f"  live match {v['live_s']:.2f} s, verify {v['verify_s']:.2f} s -> {v['verify_realtime_x']:.1f}x real time "
          f"(target >= {v['target_realtime_x']}x), {v['verify_vs_live']:.2f}x the live match's speed")
    print("  seek to tick   via keyframe   straight from tick 0")
    for sk in v["seeks"]:
        print(f"  {sk['tick']:>12} {sk['seek_s']:>14.3f} s {sk['straight_s']:>18.3f} s")
    print(f"  slowest seek {v['max_seek_s']:.3f} s (target <= {v['target_seek_s']} s)")
    print(f"snapshot of {s['entities']} entities: {s['kib']} KiB, encode+decode {s['encode_decode_ms']:.2f} ms "
          f"(targets <= {s['target_kib']} KiB, <= {s['target_ms']} ms); rebuilding the world {s['rebuild_world_ms']} ms")
    print(f"  plain msgpack dump of the same data: {s['plain_kib']} KiB, encode+decode {s['plain_encode_decode_ms']:.2f} ms")
    if res.get("memory"):
        print_memory(res["memory"])
    b = res.get("snapshot_brains")
    if b:
        print(f"  the same with every unit an NPC (brains and memories saved too): {b['kib']} KiB, encode+decode "
              f"{b['encode_decode_ms']:.2f} ms; plain dump {b['plain_kib']} KiB, {b['plain_encode_decode_ms']:.2f} ms")


# -- peak memory of the replay commands against the replay's length ----------------------------------------------
MEMORY_MINUTES = (1, 5, 20)


def memory_content(minutes: int):
    """The cheapest scenario that lasts: the skirmish map with 3 NPCs a side (brains, so there are decision
    records to explain), no commander, hit points x1000 so that nobody dies before the tick limit."""
    content, sid = scaled_content(load_content(), 6, ai="brain", commander="")
    tough = {uid: u.model_copy(update={"hp": u.hp * 1000}) for uid, u in content.units.items()}
    scenarios = dict(content.scenarios)
    scenarios[sid] = scenarios[sid].model_copy(update={"max_ticks": minutes * 60 * 30})
    return dataclasses.replace(content, units=tough, scenarios=scenarios), sid


def record_minutes(path: str, minutes: int) -> int:
    content, sid = memory_content(minutes)
    world = World(content, sid, 1)
    rec = ReplayRecorder(path, world)
    try:
        while not world.over:
            world.step()
            rec.after_tick(world)
        rec.close(world)
        return world.tick
    finally:
        world.close()


def _peak_of(command: str, path: str, minutes: int) -> dict:
    """In this (fresh) process: the tracemalloc peak of one replay command, content loading excluded."""
    import tracemalloc
    from game.app.report import collect
    content, _sid = memory_content(minutes)
    tracemalloc.start()
    t0 = time.perf_counter()
    replay = read_replay(path)
    end = replay.end_state_tick
    if command == "verify":
        assert verify(replay, content).ok
    elif command == "seek":
        seek(replay, content, end - 1).close()
    elif command == "explain":
        key = replay.records.keys("npc")[0]
        assert replay.records.at("npc", key, end - 1) is not None
        seek(replay, content, end - 1).close()
    elif command == "report":
        collect(replay, content)
    _size, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"peak_mib": round(peak / 2 ** 20, 2), "seconds": round(time.perf_counter() - t0, 2)}


def bench_replay_memory(tmp: str, minutes=MEMORY_MINUTES, commands=("verify", "seek", "explain", "report")) -> dict:
    """Peak memory (tracemalloc, each command in its own process) of every replay command against the replay's
    length in game-minutes; memory should not grow with it (the target: the longest within 1.2x the shortest)."""
    import json
    import subprocess
    import sys
    rows = []
    for m in minutes:
        path = os.path.join(tmp, f"mem{m}.rtsreplay")
        ticks = record_minutes(path, m)
        row = {"minutes": m, "ticks": ticks, "replay_kib": round(os.path.getsize(path) / 1024)}
        for command in commands:
            code = (f"import json; from benchmarks.saves import _peak_of; "
                    f"print(json.dumps(_peak_of({command!r}, {path!r}, {m})))")
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            row[command] = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
    ratio = {c: round(rows[-1][c]["peak_mib"] / max(rows[0][c]["peak_mib"], 1e-9), 2) for c in commands}
    return {"rows": rows, "ratio_longest_to_shortest": ratio, "target_ratio": 1.2}


def print_memory(res: dict) -> None:
    commands = list(res["ratio_longest_to_shortest"])
    print("replay commands' peak memory (tracemalloc, MiB) against the replay's length:")
    print(f"  {'minutes':>7} {'ticks':>6} {'file KiB':>8} " + " ".join(f"{c:>8}" for c in commands))
    for row in res["rows"]:
        print(f"  {row['minutes']:>7} {row['ticks']:>6} {row['replay_kib']:>8} "
              + " ".join(f"{row[c]['peak_mib']:>8.2f}" for c in commands))
    print("  longest / shortest: " + ", ".join(f"{c} {r}x" for c, r in res["ratio_longest_to_shortest"].items())
          + f" (target <= {res['target_ratio']}x)")
