"""The tactical commander in the tick: abstract the world, search, and order squads through the ledger.

Every ``every`` ticks (the profile's), for each team with a commander
profile: the map's regions (ai/regions, cut once per map), the region graph
with the doors as they are now, and one group per squad (its members' most
common region, their hit points and damage rate) make the abstract state;
the profile's algorithm (UCT, Expected Outcome or scripted attack-nearest,
ai/tactics; Portfolio Greedy Search, ai/portfolio) picks an action per group
(with ``determinize``, the enemy squads the team does not see now are sampled
near their estimate in each playout); each becomes an ``order`` action on the
squad's entity (hold / attack / move, a region and its centre) submitted to
the ledger — only when it changed. The NPCs read their squad's order as
facts (``intent_*``). Search budgeted by playouts is deterministic (its RNG is
seeded from the world seed, team and tick); with a time budget the decision
may differ from run to run, but the orders are in the ledger, so a replay
re-applies them and never searches.
"""
from __future__ import annotations

import functools
import time
from operator import attrgetter, itemgetter

import esper
import numpy as np

from ai import portfolio as portfolio_search
from ai import regions as region_cut
from ai import tactics
from ai.records import CommanderDecision
from components import Health, Position, Squad, SquadOrder, Team, UnitKind, Weapon
from content.tiles import LEGEND
from systems.base import Decider

KIND_OF = {tactics.HOLD: "hold", tactics.ATTACK: "attack", tactics.MOVE: "move"}
REGION_SEED = 1            # the map's cut does not depend on the match seed
_first = itemgetter(0)
_second = itemgetter(1)


def map_regions(world, k: int) -> region_cut.Regions:
    """The match map cut into ``k`` regions; kept on the world, since the windows ask every frame."""
    cached = world.region_cuts.get(k)
    if cached is not None:
        return cached
    tmap = world.tilemap
    # the cut is a property of the map, not of the doors' state now: a shut door is floor and a boundary
    walk = [LEGEND[ch].passable for row in tmap.rows for ch in row]
    doors = frozenset(y * tmap.width + x for y, row in enumerate(tmap.rows) for x, ch in enumerate(row)
                      if LEGEND[ch].door is not None)
    # a point-symmetric map gets a point-symmetric cut (a mirror match is fair to both sides; needs an even k)
    mirrored = k % 2 == 0 and len(walk) % 2 == 0 and region_cut.is_point_symmetric(walk, doors)
    try:
        world.region_cuts[k] = region_cut.regions_for(walk, tmap.width, tmap.height, k, REGION_SEED, doors, mirrored)
    except ValueError:
        if not mirrored:
            raise
        world.region_cuts[k] = region_cut.regions_for(walk, tmap.width, tmap.height, k, REGION_SEED, doors)
    return world.region_cuts[k]


def squad_entities(world) -> dict[tuple[int, int], int]:
    world.activate()
    return {(o.team, o.squad): eid for eid, o in sorted(esper.get_component(SquadOrder))}


def _column(items, name: str, dtype) -> np.ndarray:
    """The attribute ``name`` of every object of ``items`` (a sequence), as one array."""
    return np.fromiter(map(attrgetter(name), items), dtype, len(items))


def fire_rates(weapons, hz: int) -> np.ndarray:
    """Each weapon's damage rate at full strength, ``damage * accuracy * hz / max(1, cooldown)``, taken left to
    right as the scalar formula takes it (the same doubles)."""
    return _column(weapons, "damage", np.float64) * _column(weapons, "accuracy", np.float64) * hz \
        / np.maximum(1, _column(weapons, "cooldown", np.int64))


class SquadColumns:
    """Every unit in a squad as columns, ascending entity id: ``ids``, ``team``, ``squad``, ``x``, ``y``, ``hp``,
    ``max_hp``, ``fire`` (its weapon's damage rate at full strength, ``damage * accuracy * hz / max(1, cooldown)``)
    and ``range``. Read once per decision tick and shared by every team's ``abstract`` on that tick (the world
    does not change between the teams' decisions: their orders wait in the ledger)."""
    __slots__ = ("ids", "team", "squad", "x", "y", "hp", "max_hp", "fire", "range")

    def __init__(self, world):
        rows = sorted(esper.get_components(Team, Squad, Position, Health, Weapon, UnitKind), key=_first)
        self.ids = np.fromiter(map(_first, rows), np.int64, len(rows))
        teams, squads, positions, healths, weapons, _kinds = zip(*map(_second, rows)) if rows else ((),) * 6
        self.team = _column(teams, "team", np.int64)
        self.squad = _column(squads, "squad", np.int64)
        self.x = _column(positions, "x", np.float64)
        self.y = _column(positions, "y", np.float64)
        self.hp = _column(healths, "hp", np.float64)
        self.max_hp = _column(healths, "max_hp", np.float64)
        self.fire = fire_rates(weapons, world.hz)
        self.range = _column(weapons, "range", np.float64)


def abstract(world, regs: region_cut.Regions, viewer: int | None = None, columns: SquadColumns | None = None):
    """(model parameters' adjacency, group specs, state, squad keys) for the world as ``viewer`` knows it: under
    fog of war an enemy unit counts where the viewer sees it now, or where it last saw it (with the hit points it
    had then) while it remembers it, and not at all otherwise (game/fog.py). ``viewer`` None: everything.
    ``columns``: the units as ``SquadColumns`` read this tick (read here when not given).

    A group is a squad: its region is the one most of its members stand in (ties in the cut's tie order), its hit
    points, full hit points, damage rate and range the sums over its members in entity order (each sum added up
    one member after another, as ``np.bincount`` adds, without compensation: docs/rules/commander.md); the
    members the viewer knows only from memory or estimate come after those it knows now, as they are listed.
    """
    nav = world.nav
    passable = lambda cells: all(nav.walkable[c] for c in cells)    # a door edge counts while the door is open
    adjacency = regs.adjacency(passable)
    fog = world.fog if viewer is not None and world.fog.enabled else None
    cols = columns if columns is not None else SquadColumns(world)
    team_col = cols.team
    # the teams whose units count only where the viewer knows them (a group is one team's: each group's members
    # are read in entity order either way)
    hidden = [t for t in range(len(world.sides)) if world.enemies(viewer, t)] if fog is not None else []
    if hidden:
        secret = np.isin(team_col, hidden)
        memory = fog.remembered_units(viewer)
        in_sight = np.isin(cols.ids, seen_enemy_ids(world, viewer))
        remembered = np.isin(cols.ids, np.fromiter(memory, np.int64, len(memory))) & ~in_sight
        plain = np.flatnonzero(~secret)
        # a hidden team's unit counts where the viewer sees it now, or where it remembers it; never seen, or
        # forgotten: unknown
        known = np.flatnonzero(secret & (in_sight | remembered))
        rows = np.concatenate([plain, known])
        xs, ys, hps, max_hps = cols.x[rows], cols.y[rows], cols.hp[rows], cols.max_hp[rows]
        recalled = np.flatnonzero(remembered[rows])
        for at, eid in zip(recalled.tolist(), cols.ids[rows[recalled]].tolist()):
            _t, _k, xs[at], ys[at], hps[at], max_hps[at] = memory[eid][:6]
    else:
        rows = np.arange(len(team_col))
        xs, ys, hps, max_hps = cols.x, cols.y, cols.hp, cols.max_hp
    teams, squads, fire, ranges = team_col[rows], cols.squad[rows], cols.fire[rows], cols.range[rows]
    if fog is not None:
        extra = estimate_unseen(world, viewer, set(zip(teams.tolist(), squads.tolist())))
        if extra:                         # one row per spawn, repeated for its units (full strength: hp = max_hp)
            keys_e, xs_e, ys_e, hps_e, weapons_e, count = zip(*extra)
            more = lambda values, dtype=np.float64: np.repeat(np.array(values, dtype=dtype), count)   # noqa: E731
            hp_more = more(hps_e)
            teams = np.concatenate([teams, more([k[0] for k in keys_e], np.int64)])
            squads = np.concatenate([squads, more([k[1] for k in keys_e], np.int64)])
            xs = np.concatenate([xs, more(xs_e)])
            ys = np.concatenate([ys, more(ys_e)])
            hps = np.concatenate([hps, hp_more])
            max_hps = np.concatenate([max_hps, hp_more])
            fire = np.concatenate([fire, np.repeat(fire_rates(weapons_e, world.hz), count)])
            ranges = np.concatenate([ranges, more([w.range for w in weapons_e])])
    # one column per (team, squad), in key order; each sum adds its members in the order listed
    low = int(squads.min()) if len(squads) else 0
    span = int(squads.max()) - low + 1 if len(squads) else 1
    codes, col = np.unique(teams * span + (squads - low), return_inverse=True)
    col = col.reshape(-1)
    n = len(codes)
    members = np.bincount(col, minlength=n).tolist()
    hp_sum = np.bincount(col, hps, n).tolist()
    max_sum = np.bincount(col, max_hps, n).tolist()
    fire_sum = np.bincount(col, fire, n).tolist()
    range_sum = np.bincount(col, ranges, n).tolist()
    # each group's members per region (column 0: on no region)
    width = regs.k + 1
    votes = np.bincount(col * width + regs.regions_of(xs, ys) + 1, minlength=n * width).reshape(n, width)
    specs, regions_now, hps_now, keys = [], [], [], []
    ranks = {}                            # team -> its tie order (the cut's, turned for a team in the second half)
    for g, code in enumerate(codes.tolist()):
        key = (code // span, code % span + low)
        count = members[g]
        # the most members; ties in the cut's tie order (a mirrored cut's half turn keeps it: fair to both sides)
        rank = ranks.get(key[0]) or ranks.setdefault(key[0], regs.tie_rank(second_half(world, key[0], regs)))
        row = votes[g]
        region = min(((-int(row[r + 1]), rank[r] if r >= 0 else -1, r) for r in (np.flatnonzero(row) - 1).tolist()))[2]
        if region < 0:
            continue
        hp, max_hp = hp_sum[g], max_sum[g]
        long_range = range_sum[g] / count > 5.0
        # fire at full strength scales with what is left: the group's dps now is dps_full * hp / max_hp
        specs.append(tactics.GroupSpec(f"{key[0]}:{key[1]}", key[0], max_hp, fire_sum[g] * max_hp / max(hp, 1e-9),
                                       max_hp / count, int(long_range)))
        regions_now.append(region)
        hps_now.append(hp)
        keys.append(key)
    return adjacency, specs, tactics.new_state(regions_now, hps_now), keys


def seen_enemy_ids(world, viewer: int) -> np.ndarray:
    """The ids of the enemy units ``viewer`` sees now (``Fog.sees`` at each one's position, under fog of war), as
    one array: read from the tick's ``World.seen_index``, which applies the same rule (``Fog.corner_tiles``) to every
    unit at once."""
    if viewer in world.sees_all:          # seen_index ignores fog for such a team; Fog.sees reads its grid all the same
        parts = [ids[world.fog.seen_mask(viewer, xs, ys)] for other, (ids, xs, ys) in world.team_index().items()
                 if world.enemies(viewer, other)]
    else:
        parts = [ids for other, (ids, _xs, _ys) in world.seen_index(viewer).items() if world.enemies(viewer, other)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def seen_enemies(world, viewer: int) -> set[int]:
    """``seen_enemy_ids`` as a set."""
    return set(seen_enemy_ids(world, viewer).tolist())


def estimate_unseen(world, viewer: int, known: set) -> list[tuple]:
    """The enemy squads ``viewer`` knows nothing of (not in ``known``: no member seen now or remembered), filled in
    with what is public: the scenario's starting forces of that squad, at full strength, where they started. The
    search plans against this estimate until the squad is found (seed 001: hidden facts are estimated when the
    search simulates); a squad trained later, or one that died unseen, is not guessed at. One row per spawn, in
    the scenario's order: ``((team, squad), x, y, hit points, weapon, count)`` (its units are alike)."""
    from game.scenario import unit_weapon
    out = []
    for team, tdef in enumerate(world.scenario.teams):
        if not world.enemies(viewer, team):
            continue
        for spawn in tdef.spawns:
            key = (team, spawn.squad)
            udef = world.content.units.get(spawn.unit)
            if udef is None or key in known:
                continue
            if spawn.at is not None:
                x, y = spawn.at[0] + 0.5, spawn.at[1] + 0.5
            elif tdef.start >= 0:
                sx, sy = world.tilemap.starts[tdef.start]
                x, y = sx + 0.5, sy + 0.5
            else:
                continue
            out.append((key, x, y, float(udef.hp), unit_weapon(udef, world.hz), spawn.count))
    return out


def hidden_groups(world, viewer: int | None, keys: list) -> list[int]:
    """The indexes (into ``keys``) of the enemy squads ``viewer`` sees no member of now: where they are is a memory
    or an estimate (``abstract``). Empty without fog of war or for a viewer that sees everything."""
    if viewer is None or not world.fog.enabled:
        return []
    fog = world.fog
    units = seen_enemies(world, viewer)
    indexed = {e for ids, _xs, _ys in world.team_index().values() for e in ids.tolist()}
    seen = set()
    for eid, (team, squad, pos) in sorted(esper.get_components(Team, Squad, Position)):
        if world.enemies(viewer, team.team) and (eid in units if eid in indexed else fog.sees(viewer, pos.x, pos.y)):
            seen.add((team.team, squad.squad))
    return [g for g, key in enumerate(keys) if world.enemies(viewer, key[0]) and key not in seen]


class CommanderSystem(Decider):
    def run(self, world):
        profiles = world.content.commanders
        columns = None                                  # the units as columns, read once for every team deciding
        for team, name in enumerate(world.commanders):
            profile = profiles.get(name) if name else None
            if profile is None or world.controllers[team] == "player":
                continue
            if world.tick % profile.every:              # every team on the same tick: none decides later
                continue
            if columns is None:
                columns = SquadColumns(world)
            decide(world, team, profile, columns)


def second_half(world, team: int, regs: region_cut.Regions | None = None) -> bool:
    """Whether the team's home lies in a mirrored cut's second half: the lower half of the map for a cut made in
    row-major order (on the middle row of an odd height, its right half), the right half for one made in column-major
    order (``regs.by_columns``; on the middle column, its lower half), so that a home and its image always get
    opposite answers. Its tie order is then the cut's turned (``tie_rank``). Without ``regs`` (or for a plain cut,
    whose tie order no flip changes): the home quarter, ``World.turns``, is 2 or 3."""
    if regs is None or not regs.half:
        return world.turns[team] >= 2
    home = world.home_tile(team)
    if home is None:
        return False
    x2, y2 = (home[0] + 0.5) * 2, (home[1] + 0.5) * 2          # the home's centre, doubled: exact for tile halves
    width, height = world.tilemap.width, world.tilemap.height
    if regs.by_columns:
        return x2 > width or (x2 == width and y2 >= height)
    return y2 > height or (y2 == height and x2 >= width)


@functools.lru_cache(maxsize=32)
def _model(adjacency: tuple, step_seconds: float, evaluation: str, rank: tuple) -> tactics.Model:
    """The tactical model of a region graph for a profile's step and evaluation and a team's tie order, made once
    and shared by every decision that asks for the same (a model is frozen and its tables only read; making one
    runs a search from every region, about half a millisecond of a 13 ms decision at 20 squads and 40 regions)."""
    return tactics.Model(adjacency, step_seconds, 3, evaluation, rank)


def decide(world, team: int, profile, columns: SquadColumns | None = None) -> CommanderDecision:
    """One decision for ``team``: search, submit changed orders, record it. Returns the record. ``columns``: the
    units as ``SquadColumns`` read this tick, shared by the teams deciding on it (read here when not given)."""
    regs = map_regions(world, profile.regions)
    viewer = None if team in world.sees_all else team
    adjacency, specs, state, keys = abstract(world, regs, viewer=viewer, columns=columns)
    model = _model(tuple(tuple(a) for a in adjacency), profile.step_seconds, profile.evaluation,
                   regs.tie_rank(second_half(world, team, regs)))
    # keyed on the team's luck key (its home quarter), not its index: listing the teams in another order changes
    # nothing (World.luck_keys; issue 17, fair mirrors)
    rng = np.random.default_rng([world.seed, world.luck_keys[team], world.tick])
    # determinization: the squads the team does not see now are sampled near their estimate in each playout
    hidden = ({g: profile.hidden_spread for g in hidden_groups(world, viewer, keys)}
              if profile.determinize else None)
    started = time.perf_counter()
    if profile.algorithm == "uct":
        decision = tactics.uct(model, specs, state, team, playouts=profile.playouts, batch=profile.batch,
                               leaves=profile.leaves, exploration=profile.exploration, horizon=profile.horizon,
                               policy=profile.playout, rng=rng)
    elif profile.algorithm == "eo":
        decision = tactics.expected_outcome(model, specs, state, team, playouts=profile.playouts,
                                            batch=profile.batch, horizon=profile.horizon, policy=profile.playout,
                                            rng=rng, hidden=hidden)
    elif profile.algorithm == "portfolio":
        decision = portfolio_search.portfolio_search(
            model, specs, state, team, playouts=profile.playouts, iterations=profile.iterations,
            responses=profile.responses, horizon=profile.horizon, portfolio=profile.portfolio, hidden=hidden,
            samples=profile.samples if hidden else 1, rng=rng)
    else:
        decision = tactics.scripted(model, specs, state, team)
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    squads = squad_entities(world)
    orders = []
    for g, (task, target) in sorted(decision.actions.items()):
        key = keys[g]
        eid = squads.get(key)
        if eid is None:
            continue
        kind = KIND_OF[task]
        cx, cy = regs.centres[target]
        current = esper.component_for_entity(eid, SquadOrder)
        orders.append([key[1], kind, int(target)])
        if current.kind == kind and current.region == target:
            continue
        world.ledger.submit(world.tick, "order", eid, 0,
                            {"kind": kind, "region": int(target), "x": cx + 0.5, "y": cy + 0.5}, source="commander")
    record = CommanderDecision(
        tick=world.tick, team=team, profile=profile.id, algorithm=decision.algorithm, playouts=decision.playouts,
        iterations=decision.iterations, value=round(float(decision.value), 4),
        groups=[[specs[g].name, int(state.region[g]), round(float(state.hp[g]), 1)] for g in range(len(specs))],
        orders=orders, stats=[[str(label), int(n), float(mean)] for label, n, mean in decision.stats],
        ms=round(elapsed_ms, 2) if world.timings else 0.0,   # wall clock only when asked: replays stay identical
        view="all" if not world.fog.enabled else "sees_all" if team in world.sees_all else "fog")
    world.decisions.add(record)
    return record
