"""The commander's batched playouts compiled with Numba: the same numbers as ``ai.tactics.playout_many``'s numpy
path, bit for bit, seven to ten times faster (a whole UCT decision in about a quarter of the time).

A UCT decision runs about thirty batches of 64 playouts over a handful of groups; on arrays that small each numpy
call costs more than its arithmetic, so a 2,000-playout decision took 23 ms, 21 of them in numpy's call overhead
(issue 20 asks for 10 ms). This module runs the same rules (docs/rules/commander.md, sections 3 and 5: the
playout policy's choice, then *simulate t*) one row at a time in compiled loops. It is an optional extra
(``pip install -e '.[fast]'``); without Numba, with a Numba that cannot be imported or compile the kernel (a
warning says why, once), or with ``RTS_NO_JIT=1`` in the environment, ``playout_many`` keeps its numpy path. Both paths give identical values (tests/test_tactics_jit.py compares them on random
models and on real decisions), so a replay recorded with one verifies with the other.

Why the results are identical, operation by operation:

- every float is computed by the same IEEE operations in the same order as the numpy expression it replaces
  (``dps * (hp / max_hp) * fire`` is ``(dps * (hp / max_hp)) * fire`` in both); Numba compiles without
  ``fastmath``, so nothing is reassociated or fused;
- ``np.bincount`` adds a bin's weights in the order of the flat (row, group) index, starting from 0.0; the loops
  here add them in that order, from 0.0;
- the per-region sum over two teams (``sum(axis=2)``) is ``a + b`` however numpy orders it; with three or more
  teams numpy's order of the additions is its own affair, so those worlds keep the numpy path (``available``);
- rows never interact (every bin is keyed by its row), so one row can run all its rounds before the next; the
  random policy's draws are made by numpy beforehand, one ``rng.random((B, G))`` per choice as the numpy path
  makes them, so the generator ends in the same state.

The evaluation at the end stays in numpy (``Batch.evaluate``): one call per batch. The equality holds for the
abstract model's inputs as the commander builds them: finite hit points and non-negative damage rates (hit points
only fall). With an infinite or growing group the numpy path can turn a finished row's ``inf * 0`` into NaN,
which these loops, skipping finished rows, do not.
"""
from __future__ import annotations

import numpy as np

from ai import jit

#: the tasks' codes and rates, as in ai.tactics (HOLD, ATTACK, MOVE = 0, 1, 2)
_HOLD, _ATTACK, _MOVE = 0, 1, 2
_INF = np.inf


_INSTALLED = jit.INSTALLED     # optional: pip install -e '.[fast]'


def installed() -> bool:
    """Whether Numba is installed (it is imported only when a playout first needs it: 0.5 s a process)."""
    return _INSTALLED


def available(teams: int) -> bool:
    """Whether the compiled path runs: Numba is installed and usable, ``RTS_NO_JIT`` is not set, and at most two
    teams. The first call that would use it imports Numba and compiles the kernel."""
    return teams <= 2 and _BUILD.available()


def _make(njit):
    kernel = njit(cache=True)(_kernel)
    _warm_up(kernel)                     # compiles now (or loads Numba's cache), so a failure falls back
    return kernel


_BUILD = jit.Build("the commander's playouts run on numpy (the same numbers, slower)", _make)


def _kernel(region, hp, task, target, team, dps, max_hp, mobile, hops, nexthop, deg, nb, fire_of, taken_of,
            first, everyone, left, draws, scripted, substeps, dt, teams, regions):
    """Run every row's playout in place on the (B, G) arrays ``region``, ``hp``, ``task``, ``target`` (already
    repeated ``reps`` times per state). ``first`` (B, G) is the first choice's mask, ``everyone`` (G,) the later
    rounds', ``left`` (B,) the rounds after the first, ``draws`` (C, B, G) the random policy's numbers."""
    b_count, g_count = hp.shape
    fire_bin = np.zeros(regions * teams)
    held_bin = np.zeros(regions * teams)
    fire = np.zeros(g_count)
    taken = np.zeros(g_count)
    key = np.zeros(g_count, dtype=np.int64)
    hits = np.zeros(g_count)
    new_task = np.zeros(g_count, dtype=np.int64)
    new_target = np.zeros(g_count, dtype=np.int64)
    for b in range(b_count):
        reg = region[b]
        h = hp[b]
        tk = task[b]
        tg = target[b]
        for call in range(left[b] + 1):
            # -- choose: every group's task by the policy, then only the masked live groups take it
            for g in range(g_count):
                r = reg[g]
                if scripted:
                    near = 0
                    dist = _INF
                    for o in range(g_count):
                        d = float(hops[r, reg[o]]) if team[o] != team[g] and h[o] > 0 else _INF
                        if o == 0 or d < dist:
                            near = o
                            dist = d
                    step = nexthop[r, reg[near]]
                    movable = dist != _INF and dist < 10 ** 6 and mobile[g]
                    if dist == 0:
                        new_task[g] = _ATTACK
                    elif movable:
                        new_task[g] = _MOVE
                    else:
                        new_task[g] = _HOLD
                    new_target[g] = step if new_task[g] == _MOVE else r
                else:
                    dg = deg[r] if mobile[g] else 0
                    pick = np.int64(np.floor(draws[call, b, g] * (dg + 2)))
                    k = pick - 2 if pick - 2 > 0 else 0
                    if pick == 0:
                        new_task[g] = _HOLD
                    elif pick == 1:
                        new_task[g] = _ATTACK
                    else:
                        new_task[g] = _MOVE
                    new_target[g] = nb[r, k] if pick >= 2 else r
            for g in range(g_count):
                masked = first[b, g] if call == 0 else everyone[g]
                if masked:
                    if h[g] > 0:
                        tk[g] = new_task[g]
                        tg[g] = new_target[g]
                    else:
                        tk[g] = _HOLD
                        tg[g] = reg[g]
            # -- simulate t: moves complete, then the substeps of fire
            for g in range(g_count):
                if tk[g] == _MOVE and h[g] > 0:
                    reg[g] = tg[g]
            for g in range(g_count):
                key[g] = reg[g] * teams + team[g]
                fire[g] = fire_of[tk[g]]
                taken[g] = taken_of[tk[g]] * dt
            for _ in range(substeps):
                for g in range(g_count):                 # every bin a group's region reads starts at 0.0
                    for t in range(teams):
                        fire_bin[reg[g] * teams + t] = 0.0
                        held_bin[reg[g] * teams + t] = 0.0
                for g in range(g_count):
                    if h[g] > 0:
                        fire_bin[key[g]] += dps[g] * (h[g] / max_hp[g]) * fire[g]
                        held_bin[key[g]] += h[g]
                    else:
                        fire_bin[key[g]] += 0.0
                        held_bin[key[g]] += 0.0
                for g in range(g_count):
                    base = reg[g] * teams
                    total = -0.0
                    for t in range(teams):
                        total += fire_bin[base + t]
                    incoming = total - fire_bin[key[g]]
                    if h[g] > 0:
                        held = held_bin[key[g]]
                        share = h[g] / (held if held > 1e-12 else 1e-12)
                    else:
                        share = 0.0
                    hits[g] = h[g] - incoming * share * taken[g]
                for g in range(g_count):
                    h[g] = hits[g] if hits[g] > 0.0 else 0.0


def _warm_up(kernel) -> None:
    """One call on a one-row, one-group batch with the argument types ``run`` passes: Numba compiles for them."""
    i1 = np.zeros((1, 1), dtype=np.int64)
    kernel(i1.copy(), np.ones((1, 1)), i1.copy(), i1.copy(), np.zeros(1, dtype=np.int64), np.ones(1), np.ones(1),
           np.ones(1, dtype=bool), i1.copy(), i1.copy(), np.zeros(1, dtype=np.int64), i1.copy(), np.ones(3), np.ones(3),
           np.ones((1, 1), dtype=bool), np.ones(1, dtype=bool), np.zeros(1, dtype=np.int64), np.zeros((1, 1, 1)),
           True, 1, 1.0, 1, 1)


def run(batch, first: np.ndarray, everyone: np.ndarray, left: np.ndarray, policy: str, rng) -> None:
    """Play ``batch`` (an ``ai.tactics.Batch``) in place as ``playout_many``'s numpy loop would: the first choice
    masked by ``first`` (B, G), then ``left[b]`` full rounds of the groups in ``everyone`` (G,)."""
    m = batch.model
    scripted = policy != "random"
    left = np.maximum(left, 0)                    # fewer than 0 more rounds is none, as on the numpy path
    calls = 1 + (int(left.max()) if len(left) else 0)
    if scripted:
        draws = np.zeros((1, 1, 1))
    else:
        draws = np.stack([rng.random(batch.region.shape) for _ in range(calls)])
    region = np.ascontiguousarray(batch.region)
    hp = np.ascontiguousarray(batch.hp)
    task = np.ascontiguousarray(batch.task)
    target = np.ascontiguousarray(batch.target)
    _BUILD.get()(region, hp, task, target, batch.team, batch.dps, batch.max_hp, batch.mobile, m.hops, m.nexthop,
                 m._deg, m._nb, batch._fire.astype(np.float64), batch._taken.astype(np.float64),
                 np.ascontiguousarray(first), np.ascontiguousarray(everyone), left.astype(np.int64), draws, scripted,
                 m.substeps, m.step_seconds / m.substeps, batch.teams, m.regions)
    batch.region, batch.hp, batch.task, batch.target = region, hp, task, target
