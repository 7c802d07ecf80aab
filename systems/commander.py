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

import time

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


def abstract(world, regs: region_cut.Regions, viewer: int | None = None):
    """(model parameters' adjacency, group specs, state, squad keys) for the world as ``viewer`` knows it: under
    fog of war an enemy unit counts where the viewer sees it now, or where it last saw it (with the hit points it
    had then) while it remembers it, and not at all otherwise (game/fog.py). ``viewer`` None: everything.

    A group is a squad: its region is the one most of its members stand in (ties in the cut's tie order), its hit
    points, full hit points, damage rate and range the sums over its members in entity order (each sum added up
    one member after another, as ``np.bincount`` adds, without compensation: docs/rules/commander.md).
    """
    nav = world.nav
    passable = lambda cells: all(nav.walkable[c] for c in cells)    # a door edge counts while the door is open
    adjacency = regs.adjacency(passable)
    fog = world.fog if viewer is not None and world.fog.enabled else None
    memory = fog.remembered_units(viewer) if fog is not None else {}
    in_sight = seen_enemies(world, viewer) if fog is not None else set()
    hz = world.hz
    rows = sorted(esper.get_components(Team, Squad, Position, Health, Weapon, UnitKind))
    # the teams whose units count only where the viewer knows them (a group is one team's: each group's members
    # are read in entity order either way)
    hidden = {t for t in range(len(world.sides)) if world.enemies(viewer, t)} if fog is not None else set()
    plain = [c for _e, c in rows if c[0].team not in hidden] if hidden else [c for _e, c in rows]
    keys_of = [(c[0].team, c[1].squad) for c in plain]
    xs = [c[2].x for c in plain]
    ys = [c[2].y for c in plain]
    hps = [c[3].hp for c in plain]
    max_hps = [c[3].max_hp for c in plain]
    weapons = [c[4] for c in plain]
    # a hidden team's unit counts where the viewer sees it now, or where it remembers it; never seen, or
    # forgotten: unknown
    known = [r for r in rows if r[1][0].team in hidden and (r[0] in in_sight or r[0] in memory)] if hidden else ()
    for eid, (team, squad, pos, health, weapon, _kind) in known:
        if eid in in_sight:
            x, y, hp, max_hp = pos.x, pos.y, health.hp, health.max_hp
        else:
            _t, _k, x, y, hp, max_hp = memory[eid][:6]
        keys_of.append((team.team, squad.squad))
        xs.append(x)
        ys.append(y)
        hps.append(hp)
        max_hps.append(max_hp)
        weapons.append(weapon)
    if fog is not None:
        for key, x, y, hp, weapon, count in estimate_unseen(world, viewer, set(keys_of)):
            keys_of.extend([key] * count)
            xs.extend([x] * count)
            ys.extend([y] * count)
            hps.extend([hp] * count)
            max_hps.extend([hp] * count)
            weapons.extend([weapon] * count)
    codes: dict = {}                     # (team, squad) -> its group column, in order of first member
    col = [codes.setdefault(key, len(codes)) for key in keys_of]
    fire = [w.damage * w.accuracy * hz / max(1, w.cooldown) for w in weapons]
    ranges = [w.range for w in weapons]
    n = len(codes)
    col = np.array(col, dtype=np.int64)
    members = np.bincount(col, minlength=n).tolist()
    hp_sum = np.bincount(col, np.array(hps, dtype=np.float64), n).tolist()
    max_sum = np.bincount(col, np.array(max_hps, dtype=np.float64), n).tolist()
    fire_sum = np.bincount(col, np.array(fire, dtype=np.float64), n).tolist()
    range_sum = np.bincount(col, np.array(ranges, dtype=np.float64), n).tolist()
    # each group's members per region (column 0: on no region)
    width = regs.k + 1
    votes = np.bincount(col * width + regs.regions_of(xs, ys) + 1, minlength=n * width).reshape(n, width)
    specs, regions_now, hps_now, keys = [], [], [], []
    ranks = {}                            # team -> its tie order (the cut's, turned for a team in the second half)
    for key in sorted(codes):
        g = codes[key]
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


def seen_enemies(world, viewer: int) -> set[int]:
    """The enemy units ``viewer`` sees now (``Fog.sees`` at each one's position, under fog of war): read from the
    tick's ``World.seen_index``, which applies the same rule (``Fog.corner_tiles``) to every unit at once."""
    if viewer in world.sees_all:          # seen_index ignores fog for such a team; Fog.sees reads its grid all the same
        return {e for other, (ids, xs, ys) in world.team_index().items() if world.enemies(viewer, other)
                for e in ids[world.fog.seen_mask(viewer, xs, ys)].tolist()}
    return {e for other, (ids, _xs, _ys) in world.seen_index(viewer).items() if world.enemies(viewer, other)
            for e in ids.tolist()}


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
        for team, name in enumerate(world.commanders):
            profile = profiles.get(name) if name else None
            if profile is None or world.controllers[team] == "player":
                continue
            if world.tick % profile.every:              # every team on the same tick: none decides later
                continue
            decide(world, team, profile)


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


def decide(world, team: int, profile) -> CommanderDecision:
    """One decision for ``team``: search, submit changed orders, record it. Returns the record."""
    regs = map_regions(world, profile.regions)
    viewer = None if team in world.sees_all else team
    adjacency, specs, state, keys = abstract(world, regs, viewer=viewer)
    model = tactics.Model(tuple(tuple(a) for a in adjacency), profile.step_seconds, 3, profile.evaluation,
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
