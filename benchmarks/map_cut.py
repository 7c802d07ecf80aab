"""The region cut's cost at the largest map (160 x 120), for the shapes that cost most: one process per shape
(the cut is cached per process), one run each.

    python -m benchmarks.map_cut                 # every shape below
    python -m benchmarks.map_cut corridor 1      # one shape, cut into k regions

Shapes (walls round the edge): ``open`` field; ``corridor`` and ``corridor2``, a one- and a two-tile lane
winding the height of the map; ``maze``, a depth-first maze of one-tile passages (seeded); ``maze_loops``, the
maze with 300 extra openings; ``rooms``, 9 x 9 rooms with a one-tile gap in every wall; ``garrison``, the
shipped map. docs/content.md ("Map") quotes the figures.
"""
from __future__ import annotations

import random
import subprocess
import sys
import time

W, H = 160, 120
RUNS = (("corridor", 1), ("corridor2", 1), ("maze", 1), ("maze_loops", 1), ("open", 1), ("rooms", 1),
        ("open", 20), ("garrison", 20))


def dfs_maze(cw: int, ch: int, choose) -> list[tuple[int, int]]:
    """The open tiles of a depth-first maze of ``cw`` x ``ch`` cells, one-tile passages: cell (cx, cy) is tile
    (2 cx, 2 cy), a passage the tile between two cells; ``choose(options)`` picks the next cell (seeded by the
    caller). A tree: every cell reached once.

    >>> sorted(dfs_maze(2, 1, lambda opts: opts[0]))
    [(0, 0), (1, 0), (2, 0)]
    """
    seen, stack = {(0, 0)}, [(0, 0)]
    tiles = [(0, 0)]
    while stack:
        cx, cy = stack[-1]
        opts = [(cx + dx, cy + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= cx + dx < cw and 0 <= cy + dy < ch and (cx + dx, cy + dy) not in seen]
        if not opts:
            stack.pop()
            continue
        nx, ny = choose(opts)
        seen.add((nx, ny))
        tiles += [(2 * nx, 2 * ny), (cx + nx, cy + ny)]
        stack.append((nx, ny))
    return tiles


def shape(name: str) -> list[str]:
    g = [["#"] * W for _ in range(H)]
    if name == "open":
        for y in range(1, H - 1):
            g[y][1:W - 1] = ["."] * (W - 2)
    elif name in ("corridor", "corridor2"):
        wide = 1 if name == "corridor" else 2
        y, lane = 1, 0
        while y + wide - 1 < H - 1:
            for yy in range(y, y + wide):
                g[yy][1:W - 1] = ["."] * (W - 2)
            turn = W - 2 if lane % 2 == 0 else 1                 # to the next lane, at alternating ends
            if y + 2 * wide < H:
                g[y + wide][turn] = "."
                if wide == 2:
                    g[y + wide][turn - 1 if turn > 1 else turn + 1] = "."
            y += wide + 1
            lane += 1
    elif name in ("maze", "maze_loops"):
        rng = random.Random(7)
        for x, y in dfs_maze((W - 1) // 2, (H - 1) // 2, rng.choice):
            g[y + 1][x + 1] = "."
        if name == "maze_loops":
            for _ in range(300):
                x, y = rng.randrange(1, W - 1), rng.randrange(1, H - 1)
                if (x + y) % 2 == 1:
                    g[y][x] = "."
    elif name == "rooms":
        for y in range(1, H - 1):
            for x in range(1, W - 1):
                if (x % 10 and y % 10) or x % 10 == 5 or y % 10 == 5:
                    g[y][x] = "."
    elif name == "garrison":
        from content.loader import load_content
        return list(load_content().maps["garrison"].rows)
    else:
        raise SystemExit(f"unknown shape {name!r} (known: {', '.join(sorted({s for s, _k in RUNS}))})")
    return ["".join(row) for row in g]


def cut(name: str, k: int) -> dict:
    from ai import regions
    from content.tiles import LEGEND
    rows = shape(name)
    w, h = len(rows[0]), len(rows)
    walk = [LEGEND[ch].passable for row in rows for ch in row]
    doors = frozenset(y * w + x for y, row in enumerate(rows) for x, ch in enumerate(row) if LEGEND[ch].door is not None)
    t0 = time.perf_counter()
    got = regions.kmeans(walk, w, h, k, seed=1, doors=doors)
    took = time.perf_counter() - t0
    return {"shape": name, "size": f"{w}x{h}", "k": k, "walkable": sum(walk), "largest_region": max(got.sizes),
            "iterations": got.iterations, "seconds": round(took, 2)}


def main(argv: list[str]) -> int:
    if argv:
        r = cut(argv[0], int(argv[1]) if len(argv) > 1 else 1)
        print(f"{r['shape']:>10} {r['size']} k={r['k']:<3} {r['walkable']:>6} walkable, largest region "
              f"{r['largest_region']:>6}, {r['iterations']:>2} rounds: {r['seconds']:.2f} s", flush=True)
        return 0
    for name, k in RUNS:
        subprocess.run([sys.executable, "-m", "benchmarks.map_cut", name, str(k)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
