"""NPC brains in the running game: the real ledger, staggering, snapshots and replays."""
import collections
import dataclasses

import esper
import pytest

from ai.status import FAILURE
from components import BrainState, Health, Position, Squad, SquadOrder, Team
from game.ledger import CANCELLED
from game.world import World
from saves.replay import ReplayRecorder, read_replay, verify
from saves.snapshot import load_snapshot, save_snapshot
from systems.death import DeathSystem
from tests.conftest import spawn, two_teams

ARENA = [
    "##############################",
    "#............................#",
    "#............................#",
    "#..........c.................#",
    "#............................#",
    "#............................#",
    "##############################",
]


def brain_teams(blue: str, red: str, red_ai: str = "idle") -> str:
    return two_teams(blue, red, "brain", red_ai)


FAST_THINKING = {"brains/guard.toml": 'id = "guard"\nthink_every = 1\n'}


def kill(world, eid):
    world.activate()
    esper.component_for_entity(eid, Health).hp = 0.0
    DeathSystem().process(world)


def test_enemy_destroyed_mid_approach_leaves_engage_at_once_cancels_the_move_and_searches(make_world):
    red = spawn("rifleman", 12, 2) + spawn("rifleman", 28, 5)        # the second one is far out of sight
    world = make_world(ARENA, brain_teams(spawn("rifleman", 2, 2), red), extra=FAST_THINKING)
    world.activate()
    blue = min(e for e, _ in esper.get_component(BrainState))
    brain = esper.component_for_entity(blue, BrainState)
    for _ in range(300):
        if brain.mode == "engage":
            break
        world.step()
    assert brain.path == ["engage", "approach"]
    world.step()
    move = world.ledger.current(blue)
    assert move is not None and move.kind == "move" and move.source == "brain"
    entered = brain.since
    red = move.target or min(e for e, _h in esper.get_component(Health) if e != blue)
    kill(world, red)
    world.step()
    rec = world.decisions.latest("npc", blue)
    assert rec.reason == "invalidation" and rec.choice == "search"
    assert rec.time - entered < 0.3                   # well inside the 0.3 s minimum hold
    assert "gate failed: enemy_visible" in rec.detail
    assert brain.pending and brain.mode == ""
    world.step()                                         # the ledger released it; search's gates hold again
    assert world.ledger.get(move.id).state == CANCELLED
    assert world.ledger.get(move.id).reason == "cancelled by brain"
    rec = world.decisions.latest("npc", blue)
    assert rec.reason == "entered after release" and brain.mode == "search"


def test_a_hurt_guard_retreats_to_cover_and_shoots_from_it(make_world):
    world = make_world(ARENA, brain_teams(spawn("rifleman", 8, 3), spawn("rifleman", 15, 3)))
    world.activate()
    blue = min(e for e, _ in esper.get_component(BrainState))
    esper.component_for_entity(blue, Health).hp = 20.0       # hp_frac 0.2 with an enemy in sight: an emergency
    modes = []
    for _ in range(120):
        world.step()
        rec = world.decisions.latest("npc", blue)
        if rec:
            modes.append((rec.mode, tuple(rec.state)))
        if not esper.entity_exists(blue):
            break
    assert ("retreat", ("retreat", "take_cover")) in modes
    assert ("retreat", ("retreat", "hold_cover")) in modes
    pos = esper.component_for_entity(blue, Position) if esper.entity_exists(blue) else None
    if pos is not None:
        assert world.nav.is_cover(int(pos.x), int(pos.y))


def test_decisions_are_staggered_across_ticks(content):
    from benchmarks.run import scaled_content
    scaled, sid = scaled_content(content, 300, ai="brain")
    world = World(scaled, sid, 1)
    try:
        world.decisions.collect = True                   # every decision (a live match keeps an NPC's last two)
        world.run(40)
        per_tick = collections.Counter(r.tick for r in world.decisions.take() if r.kind == "npc")
        npcs = sum(world.alive_per_team())
        busiest = max(per_tick[t] for t in range(20, 40))
        assert busiest < npcs / 2, (busiest, npcs)        # nowhere near everyone deciding on the same tick
        assert min(per_tick[t] for t in range(20, 40)) > 0
    finally:
        world.close()


def test_skirmish_guards_choose_between_engage_search_retreat_and_idle_in_the_replay(content, tmp_path):
    path = tmp_path / "m.rtsreplay"
    world = World(content, "skirmish", 1)
    rec = ReplayRecorder(path, world)
    while not world.over:
        world.step()
        rec.after_tick(world)
    rec.close(world)
    world.close()
    replay = read_replay(path)
    npc = [r for r in replay.decisions if r["kind"] == "npc"]
    modes = collections.Counter(r["mode"] for r in npc)
    states = collections.Counter(tuple(r["state"]) for r in npc)
    assert {"engage", "search", "retreat", None} <= set(modes), modes
    assert {("engage", "approach"), ("engage", "shoot"), ("retreat", "take_cover")} <= set(states)
    reasons = collections.Counter(r["reason"] for r in npc)
    assert reasons["held by hysteresis"] > 0 and reasons["invalidation"] > 0 and reasons["emergency"] > 0
    one = next(r for r in npc if r["mode"] == "engage")
    cand = next(c for c in one["candidates"] if c["id"] == "engage")
    assert cand["gates"] and cand["prefs"][0][0] == "hp_frac" and cand["score"] > 0
    assert verify(replay, content).ok


def test_snapshot_with_brains_continues_identically(content, tmp_path):
    straight = World(content, "skirmish", 5)
    straight.run(700)
    expected = straight.summary()["sync_hash"]
    straight.close()
    first = World(content, "skirmish", 5)
    first.run(260)
    save_snapshot(first, tmp_path / "mid.rtssave")
    first.close()
    loaded = load_snapshot(tmp_path / "mid.rtssave", content)
    try:
        loaded.activate()
        modes = {b.mode for _e, b in esper.get_component(BrainState)}
        assert modes - {""}, "brain state travels with the snapshot"
        loaded.run(700 - loaded.tick)
        assert loaded.summary()["sync_hash"] == expected
    finally:
        loaded.close()


def test_a_snapshot_with_a_broken_brain_state_is_refused(content, tmp_path):
    from saves.container import SaveError
    world = World(content, "skirmish", 2)
    world.run(40)
    world.activate()
    eid, brain = min(esper.get_component(BrainState))
    brain.path = ["engage", "nowhere"]
    save_snapshot(world, tmp_path / "bad.rtssave")
    world.close()
    with pytest.raises(SaveError, match="brain state does not fit brain 'guard'"):
        load_snapshot(tmp_path / "bad.rtssave", content)


WIDE = ["#" * 90] + ["#" + "." * 88 + "#" for _ in range(7)] + ["#" * 90]


def _calm_world(make_world, every: int):
    """Blue NPCs: one beside an idle Red rifleman (in sight), one 70 tiles away from it; the scenario's calm rate."""
    blue = spawn("rifleman", 10, 4) + spawn("rifleman", 80, 4)
    red = spawn("rifleman", 4, 4)
    world = make_world(WIDE, f"calm_think_every = {every}\n" + brain_teams(blue, red))
    world.decisions.collect = True
    near, far = sorted(e for e, (team,) in ((e, (t,)) for e, t in esper.get_component(Team)) if team.team == 0)
    return world, near, far


def test_a_calm_npc_is_one_that_sees_no_enemy_near_was_not_hurt_and_has_perceived_its_squads_order(make_world):
    from components import Memory
    from systems.brains import Calm
    world, near, far = _calm_world(make_world, 30)
    world.run(8)                                           # each has decided once
    world.activate()
    calm = Calm(world)
    assert calm(far, 0) is True and calm(near, 0) is False     # Red's rifleman is in the near one's sight
    esper.component_for_entity(far, Health).hp -= 1.0      # hurt since it last decided
    assert not calm(far, 0)
    esper.component_for_entity(far, Health).hp += 1.0
    order = world.perception.orders().get((0, esper.component_for_entity(far, Squad).squad))
    if order is not None:                                  # a squad order it has not perceived: not calm
        mem = esper.component_for_entity(far, Memory)
        order.since = mem.order_seen + 1
        assert not calm(far, 0)
        mem.order_seen = order.since                       # it decided since (perception notes the order)
        assert calm(far, 0)


def test_calm_npcs_decide_once_per_calm_period_and_the_others_at_their_brains_rate(make_world):
    counts = {}
    for every in (0, 30):
        world, near, far = _calm_world(make_world, every)
        world.run(61)
        per = collections.Counter(r.entity for r in world.decisions.take() if r.kind == "npc" and r.tick > 0)
        counts[every] = (per[near], per[far])
    assert counts[0][1] >= 9                              # every 6 ticks without the level of detail
    assert counts[30][1] <= 4                             # every 30 (and when an action ends) with it
    assert counts[30][0] >= 9 and counts[30][0] == counts[0][0]   # the NPC in contact is not slowed


def test_ranks_kept_across_deaths_equal_ranks_counted_afresh(content, monkeypatch):
    """What the tick keeps between ticks and updates when units only died (the NPCs' stagger slots, the team
    index, each unit's rank in its squad) equals what a fresh count gives, and the update is the one that ran."""
    import numpy as np

    from benchmarks.run import scaled_content
    from systems import brains as brains_module
    from systems.brains import BrainSystem
    pruned = []
    real = brains_module._Ranks.without_dead
    monkeypatch.setattr(brains_module._Ranks, "without_dead",
                        lambda self, src, dead: pruned.append(dead) or real(self, src, dead))
    scaled, sid = scaled_content(content, 300, ai="brain")
    world = World(scaled, sid, 1)
    try:
        world.run(12)
        system = next(p for p in esper._processors if isinstance(p, BrainSystem))
        units = sorted(e for e, _h in esper.get_component(Health))
        for round_ in range(3):
            # some NPCs must decide whatever their slot (a switch waiting, a mode ended): counted afresh, then
            # carried through the deaths below
            counted = system._ranks(world)
            for k, brain in enumerate(counted.brains[round_::23]):
                if k % 2:
                    brain.pending = True
                else:
                    brain.status = FAILURE
            system._kept_ranks = None
            before = system._ranks(world)
            assert before.urgent.sum() >= 10
            slot_before = dict(zip(before.ids.tolist(), before.slots.tolist()))
            for eid in units[round_::37]:
                if esper.entity_exists(eid):
                    esper.delete_entity(eid, immediate=True)
            world.tick += 1
            kept = system._ranks(world)
            fresh = BrainSystem()._ranks(world)
            assert kept.urgent.sum() >= 8
            assert [r[0] for r in kept.rows] == [r[0] for r in fresh.rows]
            assert kept.slots.tolist() == fresh.slots.tolist() and kept.periods.tolist() == fresh.periods.tolist()
            assert kept.slots.tolist() == [slot_before[e] for e in kept.ids.tolist()]    # deaths moved no slot
            assert kept.ids.tolist() == fresh.ids.tolist() and kept.teams.tolist() == fresh.teams.tolist()
            assert all(a is b for a, b in zip(kept.brains, fresh.brains)) and len(kept.brains) == len(fresh.brains)
            assert kept.by_id == fresh.by_id and kept.urgent.tolist() == fresh.urgent.tolist()
            index = {t: (ids.tolist(), xs.tolist(), ys.tolist()) for t, (ids, xs, ys) in world.team_index().items()}
            world._index_rows = (None, {})
            world._index_tick = -1
            assert index == {t: (ids.tolist(), xs.tolist(), ys.tolist()) for t, (ids, xs, ys) in world.team_index().items()}
            perception = world.perception
            members = sorted((e, (t.team, q.squad)) for e, (t, q) in esper.get_components(Team, Squad))
            perception.orders()
            ranks = {e: perception.squad_rank(e, *key) for e, key in members}
            perception._slot_rows = []
            perception._orders_tick = -1
            perception.orders()
            assert ranks == {e: perception.squad_rank(e, *key) for e, key in members}
            counted = collections.Counter()
            for e, key in members:                     # each unit's rank in its squad, by entity id
                assert ranks[e] == counted[key]
                counted[key] += 1
            assert max(ranks.values()) > 3
            assert min(np.bincount(kept.teams)) > 100 and kept.slots.max() > 100
        assert len(pruned) == 3 and all(pruned)          # each round, by the dead it named
    finally:
        world.close()


def test_the_calm_test_of_many_npcs_at_once_follows_the_definition(content):
    """``Calm.many`` (the brains' per-tick calm test, all NPCs due at once) against the definition spelled out
    one NPC at a time: decided before and not hurt since, no squad order in the window, and no enemy it sees (the
    per-NPC ``_enemies_near`` that ``facts`` reads: within its sight range, with a clear line). Enemies near but
    out of sight or behind a wall leave an NPC calm; the sightings it hands back are the ones ``facts`` would find,
    for every NPC that passed the per-NPC tests and only those."""
    from benchmarks.run import army_content
    from components import Memory, UnitKind
    from systems.brains import Calm
    scaled, sid = army_content(content, 300)
    world = World(scaled, sid, 1)
    try:
        world.run(40)
        world.activate()
        rows = sorted((e, t.team) for e, (_b, t) in esper.get_components(BrainState, Team))
        blue = [e for e, t in rows if t == 0]
        red = [e for e, t in rows if t == 1]
        sight = world.perception.sight
        reach = max(sight.values())
        apart: list = []                       # blue NPCs far from each other, so each has one enemy near
        for eid in blue:
            p = esper.component_for_entity(eid, Position)
            if all(max(abs(p.x - q.x), abs(p.y - q.y)) > 2 * reach + 4 for _e, q in apart):
                apart.append((eid, p))
        assert len(apart) >= 3
        for k, (eid, (own, there)) in enumerate(zip(red, apart)):  # near, just inside its sight, just outside it
            r = sight[esper.component_for_entity(own, UnitKind).kind]
            here = esper.component_for_entity(eid, Position)
            here.x, here.y = there.x + (2.5, r - 0.3, r + 1.5)[k % 3], there.y
        world.step()
        world.activate()
        calm = Calm(world)
        rows = sorted((e, t.team) for e, (_b, t) in esper.get_components(BrainState, Team))
        esper.component_for_entity(rows[0][0], Health).hp -= 1.0          # one hurt since it last decided
        seen: dict = {}
        found = calm.many([e for e, _t in rows], [t for _e, t in rows], seen)
        want = []
        near_unseen = 0                        # calm with a seen enemy in its sight range (walled off)
        tested = set()                         # passed the per-NPC tests: their sightings are asked
        for eid, team in rows:
            mem = esper.component_for_entity(eid, Memory)
            if mem.last_hp < 0 or esper.component_for_entity(eid, Health).hp < mem.last_hp:
                want.append(False)
                continue
            order = world.perception.orders().get((team, esper.component_for_entity(eid, Squad).squad))
            if order is not None and order.since > mem.order_seen:
                want.append(False)
                continue
            tested.add(eid)
            pos = esper.component_for_entity(eid, Position)
            kind = esper.component_for_entity(eid, UnitKind).kind
            visible = world.perception._enemies_near(team, kind, pos.x, pos.y)
            want.append(not visible)
            assert seen[eid] == visible
            r = sight[kind]
            near = any((x - pos.x) ** 2 + (y - pos.y) ** 2 <= r * r
                       for other, (_ids, xs, ys) in world.seen_index(team).items() if world.enemies(team, other)
                       for x, y in zip(xs.tolist(), ys.tolist()))
            near_unseen += near and not visible
        assert set(seen) == tested                     # the sightings were asked of those, and only those
        assert found == want
        assert found[0] is False and 10 < sum(found) < len(found)
        assert sum(1 for f in found if not f) >= 3 and near_unseen >= 1
        assert [calm(e, t) for e, t in rows[:20]] == found[:20]
    finally:
        world.close()


def test_a_new_squad_order_keeps_its_npcs_from_calm_until_each_has_perceived_it(content, monkeypatch):
    """In an army match (deaths shift the NPCs' stagger slots), no NPC is ever judged calm while its squad has an
    order it has not perceived, and every NPC of a squad given a new order perceives it (decides, its memory noting
    the order) before it is calm again; orders do come and NPCs are kept from calm by them."""
    from benchmarks.run import army_content
    from components import Memory
    from systems import brains as brains_module
    scaled, sid = army_content(content, 300)
    held = []                                   # NPCs the rule kept from calm (an order not yet perceived)
    judged = []
    real = brains_module.Calm.many

    def many(self, eids, teams, seen=None):
        out = real(self, eids, teams, seen)
        orders = self.world.perception.orders()
        for eid, team, calm in zip(eids, teams, out):
            order = orders.get((team, esper.component_for_entity(eid, Squad).squad))
            mem = esper.component_for_entity(eid, Memory)
            news = order is not None and order.since > mem.order_seen
            assert not (calm and news), f"NPC {eid} judged calm with an order it has not perceived"
            since = order.since if order is not None else None
            if news:
                held.append((eid, since))
            if calm:
                judged.append((eid, since))
        return out

    monkeypatch.setattr(brains_module.Calm, "many", many)
    world = World(scaled, sid, 4)
    try:
        world.run(400)
        world.activate()
        assert len(held) > 50 and len(judged) > 1000
        assert len(set(held) & set(judged)) > 20     # kept from calm by an order, then calm under that same order
        given = [o.since for _e, o in esper.get_component(SquadOrder) if o.since >= 0]
        assert len(given) > 4 and max(given) > 100
    finally:
        world.close()


def test_the_kept_urgency_of_every_npc_is_its_brains_flags_each_tick(content, monkeypatch):
    """Which NPCs must decide whatever their slot (woken, a switch waiting, a mode not RUNNING) is kept between
    ticks (``_Ranks.urgent``: the inbox's wakes and each decision) instead of read from every brain: in an army match
    with deaths, and in one whose brains decide one by one, at every tick it equals the flags of every brain, and
    some NPCs were urgent."""
    from benchmarks.run import army_content
    from systems import brains as brains_module
    scaled, sid = army_content(content, 300)
    real = brains_module._Ranks.wake
    urgent_seen = []

    def wake(self, eids):
        real(self, eids)
        flags = [brains_module._must_decide(b) for b in self.brains]
        assert self.urgent.tolist() == flags
        urgent_seen.append(sum(flags))

    monkeypatch.setattr(brains_module._Ranks, "wake", wake)
    for batch in (True, False):
        world = World(scaled, sid, 2)
        world.batch_brains = batch
        try:
            world.run(150)
            assert sum(world.alive_per_team()) < 300          # units died: the ranks were counted again
        finally:
            world.close()
    assert len(urgent_seen) >= 300 and sum(urgent_seen) > 300


def test_deaths_do_not_move_an_npcs_think_slot_and_each_decides_every_period():
    """In a 400-unit army melee (calm NPCs off, so every NPC has its ordinary slot) each NPC keeps the slot it got
    at the start, its rank among its team's NPCs, and no living NPC goes more than ``think_every`` ticks without a
    decision. (When the slot was the rank counted afresh, every death below an NPC moved its next decision: about one
    death below it a tick kept it from its slot, and it went tens of ticks without deciding.)"""
    from benchmarks.run import army_content
    from content.loader import load_content
    content, sid = army_content(load_content(), 400)
    scen = content.scenarios[sid].model_copy(update={"calm_think_every": 0})
    content = dataclasses.replace(content, scenarios={**content.scenarios, sid: scen})
    world = World(content, sid, 3)
    try:
        world.run(1)
        world.activate()
        first = {e: b.slot for e, b in esper.get_component(BrainState)}
        for team in (0, 1):
            mine = sorted(e for e, (_b, t) in esper.get_components(BrainState, Team) if t.team == team)
            assert [first[e] for e in mine] == list(range(len(mine)))
        period = content.brains["guard"].think_every
        world.decisions.collect = True
        ticks: dict = collections.defaultdict(list)
        start = len(first)
        while world.tick < 700 and not world.over:
            world.step()
            for rec in world.decisions.take():
                if rec.kind == "npc":
                    ticks[rec.entity].append(rec.tick)
        alive = {e: b.slot for e, b in esper.get_component(BrainState)}
        assert start - len(alive) > 60                          # a melee: many died below others
        assert all(alive[e] == first[e] for e in alive)
        gaps = [b - a for e in alive for a, b in zip(ticks[e], ticks[e][1:])]
        assert len(gaps) > 10000 and max(gaps) <= period
    finally:
        world.close()


def test_a_brains_own_cancel_does_not_wake_it_but_a_switchs_does(make_world):
    """Through the real ledger: a brain's own cancel (a node halted) is not told to its inbox and does not wake it,
    though its actuator still answers that it ended; the cancel of an action a switch waits for is told."""
    from ai.status import FAILURE, RUNNING
    from systems.brains import CANCELLED_BY_BRAIN, LedgerActuator
    world = make_world(ARENA, brain_teams(spawn("rifleman", 2, 2), spawn("rifleman", 28, 5)))
    world.activate()
    blue = min(e for e, _ in esper.get_component(BrainState))
    brain = esper.component_for_entity(blue, BrainState)
    act = LedgerActuator(world, blue, brain)
    for waited in (False, True):
        world.run(3)
        aid = act.submit("move", 0, {"x": 5.5, "y": 4.5})
        world.step()
        assert world.ledger.get(aid).state not in ("cancelled", "rejected")
        if waited:
            brain.releasing = [aid]
        act.cancel(aid)
        brain.wake = False
        world.step()                    # the ledger cancels it; the inbox system runs at the end of the tick
        assert world.ledger.get(aid).state == CANCELLED and world.ledger.get(aid).reason == CANCELLED_BY_BRAIN
        told = [e for e in brain.inbox if e[0] == aid]
        if waited:
            assert told and brain.wake and act.status(aid)[0] == FAILURE and brain.inbox == [e for e in brain.inbox
                                                                                            if e[0] != aid]
        else:
            assert not told and not brain.wake
            assert act.status(aid) == (FAILURE, CANCELLED_BY_BRAIN) and act.status(aid + 1000)[0] == RUNNING
        brain.releasing = []


def test_an_npc_that_comes_later_takes_the_slot_after_the_highest_its_team_holds(make_world):
    """NPCs that arrive mid-match (trained, spawned) get, in entity id order, the slots after the highest their
    team's living NPCs hold (not the ranks, which would pile them onto slots others keep)."""
    from systems.brains import BrainSystem
    world = make_world(ARENA, brain_teams(spawn("rifleman", 2, 2) + spawn("rifleman", 3, 2) + spawn("rifleman", 4, 2),
                                          spawn("rifleman", 28, 5), red_ai="brain"))
    world.run(2)
    world.activate()
    blues = sorted(e for e, (_b, t) in esper.get_components(BrainState, Team) if t.team == 0)
    assert [esper.component_for_entity(e, BrainState).slot for e in blues] == [0, 1, 2]
    kill(world, blues[0])
    kill(world, blues[1])
    from game.scenario import spawn_unit
    rifleman = world.content.units["rifleman"]
    made = [spawn_unit(world, rifleman, 0, 0, x, 3.5, "brain") for x in (5.5, 6.5)]
    system = next(p for p in esper._processors if isinstance(p, BrainSystem))
    world.tick += 1
    system._ranks(world)
    assert esper.component_for_entity(blues[2], BrainState).slot == 2
    assert [esper.component_for_entity(e, BrainState).slot for e in made] == [3, 4]
