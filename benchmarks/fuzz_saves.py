"""A fuzzer of saves and replays: well-framed chunks (right lengths and checksums) holding hostile values.

Every chunk kind is rebuilt from a good file with one value changed, at a random key path, to something a
hostile user would put there (wrong types, NaN and infinities, numbers beyond 64 bits' worth of range, huge or
negative ticks and ids, lists where keys go, a msgpack timestamp, missing keys); then every command that reads
these files runs on it in this process: ``replay --verify``, ``replay --to``, ``explain``, ``report`` and
``match --load``. Each must either succeed or refuse in one line with exit status 2; anything else (a
traceback, another exit status, a second line) is a finding, printed with the seed that reproduces it.

    python -m benchmarks.fuzz_saves --cases 500 --seed 1

The tests run a short, fixed-seed version (tests/test_hostile_saves.py); the README's table of bad inputs
gives the counts of a long run.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import random
import sys
import tempfile
import time
import zlib
from collections import Counter

import msgpack

from saves.container import COMPRESSED, HEADER

REPLAY_MAGIC = b"RTSRPLY\x00"
SNAPSHOT_MAGIC = b"RTSSNAP\x00"


# -- reading and rebuilding files chunk by chunk -----------------------------------------------------------------
def split(data: bytes, magic: bytes) -> list[list]:
    """[[kind, decoded body], ...] of a good file (timestamps decoded as msgpack does by default)."""
    out, pos = [], len(magic)
    while pos < len(data):
        kind, length, _crc = HEADER.unpack_from(data, pos)
        body = data[pos + HEADER.size:pos + HEADER.size + length]
        if kind[0] in COMPRESSED:
            body = zlib.decompress(body)
        out.append([kind, msgpack.unpackb(body, raw=False, strict_map_key=False)])
        pos += HEADER.size + length
    return out


def join(chunks: list[list], magic: bytes) -> bytes:
    """The file again, every chunk framed with a right length and checksum (whatever it holds)."""
    out = [magic]
    for kind, obj in chunks:
        body = msgpack.packb(obj, use_bin_type=True, datetime=False)
        if kind[0] in COMPRESSED:
            body = zlib.compress(body, 1)
        out.append(HEADER.pack(kind, len(body), zlib.crc32(body)) + body)
    return b"".join(out)


def world_of(state: dict) -> list:
    return msgpack.unpackb(state["world"], raw=False, strict_map_key=False)


def set_world(state: dict, world: list) -> None:
    """Put edited world parts back, with a sync hash that fits them (as a careful forger would)."""
    from game.synchash import hash_bytes
    state["world"] = msgpack.packb(world, use_bin_type=True)
    state["sync_hash"] = hash_bytes(state["world"])


# -- hostile values -----------------------------------------------------------------------------------------------
HOSTILE = [
    None, True, -1, 0, 7, 99, -(1 << 63), (1 << 64) - 1, (1 << 63), 10 ** 9, 1e9, float("nan"), float("inf"),
    -float("inf"), 1e308, "", "x" * 300, "abc", [], [1, 2], {}, {"a": 1}, [[1]], b"\x00" * 9,
    msgpack.Timestamp(1, 0),
]


def paths(value, prefix=(), depth=0, out=None):
    """Every key path into a decoded value (maps by key, lists by index), to a bounded depth."""
    out = [] if out is None else out
    out.append(prefix)
    if depth >= 6:
        return out
    if isinstance(value, dict):
        for k, v in list(value.items())[:40]:
            paths(v, prefix + (k,), depth + 1, out)
    elif isinstance(value, list):
        for i, v in enumerate(value[:12]):
            paths(v, prefix + (i,), depth + 1, out)
    return out


def mutate_at(root, path: tuple, rng: random.Random):
    """Replace (or delete, or give a list key) the value at ``path`` in ``root``; returns what was done."""
    if not path:
        return root, "root"
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    roll = rng.random()
    if roll < 0.1 and isinstance(parent, dict):
        del parent[key]
        return root, f"{path} deleted"
    value = rng.choice(HOSTILE)
    parent[key] = value
    return root, f"{path} = {value!r:.40}"


def hostile_file(good: bytes, magic: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One well-framed hostile variant of ``good``: a random chunk, a random key path, a hostile value (inside
    a snapshot's world bytes as often as in the chunk itself)."""
    chunks = split(good, magic)
    i = rng.randrange(len(chunks))
    kind, body = chunks[i]
    if rng.random() < 0.05 and len(chunks) > 2:           # a whole chunk dropped or repeated
        j = rng.randrange(1, len(chunks))
        if rng.random() < 0.5:
            del chunks[j]
            return join(chunks, magic), f"chunk {j} ({chunks[j - 1][0]!r} before it) removed"
        chunks.insert(j, chunks[j])
        return join(chunks, magic), f"chunk {j} repeated"
    if kind in (b"K", b"S") and rng.random() < 0.5:
        world = world_of(body)
        options = paths(world)
        path = rng.choice(options)
        world, what = mutate_at(world, path, rng)
        if isinstance(world, list):
            set_world(body, world)
        else:
            body["world"] = world
        return join(chunks, magic), f"chunk {i} {kind!r} world{what}"
    path = rng.choice(paths(body))
    body, what = mutate_at(body, path, rng)
    chunks[i][1] = body
    return join(chunks, magic), f"chunk {i} {kind!r} {what}"


# -- running the commands -----------------------------------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int | str, str, str]:
    """(exit status or 'traceback: ...', stdout, stderr) of ``rts argv`` in this process."""
    from game.app.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
        except BaseException as exc:              # a finding: the command did not handle it
            rc = f"traceback: {type(exc).__name__}: {str(exc)[:120]}"
    return rc, out.getvalue(), err.getvalue()


def outcome(rc, err: str) -> str:
    """'ok', 'refused' (exit 2, one line) or what went wrong."""
    lines = [line for line in err.strip().splitlines() if not line.startswith("warning:")]
    if isinstance(rc, str):
        return rc
    if rc in (0, 1) and not lines:
        return "ok"
    if rc == 2 and len(lines) == 1 and lines[0].startswith("error: "):
        return "refused"
    return f"exit {rc} with {len(lines)} lines: {err.strip()[:200]}"


def replay_commands(path: str, tick: int, entity: int, good: str | None = None) -> list[list[str]]:
    """Every command that reads a replay (``diff`` against the good one, ``verify`` on the bad one's folder, in
    this process with one worker)."""
    out = [["replay", path, "--verify"], ["replay", path, "--to", str(tick)],
           ["explain", path, "--tick", str(tick), "--entity", str(entity)],
           ["explain", path, "--tick", str(tick), "--commander", "0", "--json"],
           ["report", path, "-o", path + ".svg"]]
    if good is not None:
        out += [["diff", good, path], ["verify", os.path.dirname(path), "--workers", "1", "--no-progress"]]
    return out


def make_good(folder: str, ticks: int = 120) -> tuple[str, str]:
    """A short skirmish replay (commanders, NPCs, requests, two keyframes) and a snapshot of it."""
    from content.loader import load_content
    from game.world import World
    from saves.replay import ReplayRecorder
    from saves.snapshot import save_snapshot
    content = load_content()
    replay, snap = os.path.join(folder, "good.rtsreplay"), os.path.join(folder, "good.rtssave")
    world = World(content, "skirmish", 1)
    world.max_ticks = ticks
    rec = ReplayRecorder(replay, world, keyframe_every=ticks // 2, hash_every=5, flush_every=20)
    try:
        while not world.over:
            world.step()
            rec.after_tick(world)
            if world.tick == ticks // 3:
                save_snapshot(world, snap)
        rec.close(world)
    finally:
        world.close()
    return replay, snap


def fuzz(cases: int, seed: int, folder: str | None = None, progress: bool = False) -> dict:
    """Run ``cases`` hostile files through every reading command; returns counts and findings."""
    rng = random.Random(seed)
    own = folder is None
    folder = folder or tempfile.mkdtemp(prefix="fuzz-saves-")
    good_replay, good_snap = make_good(folder)
    replay_bytes, snap_bytes = open(good_replay, "rb").read(), open(good_snap, "rb").read()
    counts: Counter = Counter()
    findings: list[str] = []
    started = time.perf_counter()
    for case in range(cases):
        case_rng = random.Random(rng.getrandbits(64))
        if case % 4 == 3:
            data, what = hostile_file(snap_bytes, SNAPSHOT_MAGIC, case_rng)
            path = os.path.join(folder, "bad.rtssave")
            commands = [["match", "--load", path, "--ticks", "60", "--json"]]
        else:
            data, what = hostile_file(replay_bytes, REPLAY_MAGIC, case_rng)
            os.makedirs(os.path.join(folder, "bad"), exist_ok=True)
            path = os.path.join(folder, "bad", "bad.rtsreplay")
            commands = [case_rng.choice(replay_commands(path, case_rng.choice([0, 30, 90, 119]), 30, good_replay))]
        with open(path, "wb") as fh:
            fh.write(data)
        for argv in commands:
            result = outcome(*run_cli(argv)[::2])
            counts[result if result in ("ok", "refused") else "finding"] += 1
            if result not in ("ok", "refused"):
                findings.append(f"case {case} (seed {seed}): {what}: rts {' '.join(argv[:1] + argv[2:])}: {result}")
        if progress and case % 50 == 49:
            print(f"{case + 1} cases, {dict(counts)}", file=sys.stderr)
    if own:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)
    return {"cases": cases, "seed": seed, "counts": dict(counts), "findings": findings,
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz_saves", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200, help="hostile files to try (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    args = parser.parse_args(argv)
    result = fuzz(args.cases, args.seed, progress=True)
    for line in result["findings"]:
        print(line)
    print(f"{result['cases']} hostile files, seed {result['seed']}, {result['seconds']} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(result["counts"].items())))
    return 1 if result["findings"] else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
