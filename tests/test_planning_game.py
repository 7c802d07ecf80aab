"""GOAP and HTN plans in the running game, through the real ledger."""
import esper

from components import Ammo, BrainState, Door, Health, Inventory, Pickup, Position
from game.ledger import CONFIRMED, REJECTED
from saves.replay import ReplayRecorder, read_replay
from tests.conftest import spawn
from tests.test_brains import brain_teams

OPEN_ARENA = [
    "##############################",
    "#............................#",
    "#..c.........................#",
    "#............................#",
    "##############################",
]
LOCKED_ROOM = [
    "##############################",
    "#............................#",
    "#....k.......................#",
    "#............................#",
    "#############L################",
    "#...........c................#",
    "##############################",
]


def guard(world):
    world.activate()
    return min(e for e, _ in esper.get_component(BrainState))


class Outcomes:
    """Every brain action's kind and latest state, collected tick by tick (the ledger prunes its history)."""

    def __init__(self, world):
        self.world = world
        self.seen: dict[int, list] = {}

    def step(self, ticks=1, recorder=None):
        for _ in range(ticks):
            self.world.step()
            if recorder is not None:
                recorder.after_tick(self.world)
            for aid, state, reason in self.world.ledger.events:
                action = self.world.ledger.actions.get(aid)
                if action is not None:
                    self.seen[aid] = [action.kind, action.actor, action.source, state, reason]

    def of(self, eid):
        return [(k, st, r) for _aid, (k, actor, src, st, r) in sorted(self.seen.items()) if actor == eid and src == "brain"]


def plan_log(world, eid):
    """The plan executor's own log, as the NPC's brain state holds it now."""
    world.activate()
    return [line for _t, line in esper.component_for_entity(eid, BrainState).plan.get("log", [])]


def test_a_hurt_guard_without_ammo_reloads_then_takes_cover(make_world):
    world = make_world(OPEN_ARENA, brain_teams(spawn("rifleman", 8, 2), spawn("rifleman", 27, 3)))
    eid = guard(world)
    esper.component_for_entity(eid, Health).hp = 15.0
    ammo = esper.component_for_entity(eid, Ammo)
    ammo.clip = 0
    out = Outcomes(world)
    out.step(150)
    kinds = [(k, s) for k, s, _r in out.of(eid)]
    assert kinds[:2] == [("reload", CONFIRMED), ("enter_cover", CONFIRMED)], kinds
    pos = esper.component_for_entity(eid, Position)
    assert (int(pos.x), int(pos.y)) == (3, 2) and ammo.clip == ammo.clip_size
    log = plan_log(world, eid)
    assert any(line.startswith("goap safe: plan ['reload', 'enter_cover'] cost 2") for line in log), log
    assert "goap safe: plan complete" in log


def test_cover_behind_a_locked_door_key_then_door_then_cover(make_world, tmp_path):
    world = make_world(LOCKED_ROOM, brain_teams(spawn("rifleman", 10, 2), spawn("rifleman", 28, 1)))
    eid = guard(world)
    esper.component_for_entity(eid, Health).hp = 15.0
    rec = ReplayRecorder(tmp_path / "door.rtsreplay", world)
    out = Outcomes(world)
    while ("enter_cover", CONFIRMED) not in [(k, st) for k, st, _r in out.of(eid)] and world.tick < 400:
        out.step(1, rec)
    pos = esper.component_for_entity(eid, Position)
    assert (int(pos.x), int(pos.y)) == (12, 5)           # in the cover behind the door
    out.step(30, rec)
    rec.close(world)
    kinds = [(k, s) for k, s, _r in out.of(eid)]
    assert kinds[:3] == [("pick_up_key", CONFIRMED), ("open_door", CONFIRMED), ("enter_cover", CONFIRMED)], kinds
    door = next(d for _e, d in esper.get_component(Door))
    assert door.state == "open" and esper.component_for_entity(eid, Inventory).keys == 0
    # the replay's decision records show the plan and each step's ledger outcome
    logs = [line for r in read_replay(tmp_path / "door.rtsreplay").decisions if r["entity"] == eid and r.get("plan")
            for _t, line in r["plan"]["log"]]
    assert any(line.startswith("htn take_cover: plan ['get_key', 'unlock_door', 'enter_cover']") for line in logs)
    assert any(line.startswith("step get_key: action #") and line.endswith("confirmed") for line in logs)
    assert any(line.startswith("step unlock_door: action #") and line.endswith("confirmed") for line in logs)


def test_when_another_unit_takes_the_key_no_door_is_tried_and_the_guard_replans(make_world):
    rows = list(LOCKED_ROOM)
    rows[1] = rows[1][:22] + "k" + rows[1][23:]                 # a second key, farther away
    red = spawn("scout", 5, 2) + spawn("rifleman", 28, 1)         # an enemy scout stands on the near key
    world = make_world(rows, brain_teams(spawn("rifleman", 10, 2), red))
    world.activate()
    eid = guard(world)
    scout = next(e for e, p in esper.get_component(Position) if esper.has_component(e, Health) and p.x < 6)
    near_key = next(e for e, p in esper.get_component(Pickup) if p.kind == "key" and p.tx == 5)
    esper.component_for_entity(eid, Health).hp = 15.0
    real_submit = world.ledger.submit

    def racing_submit(tick, kind, actor, target=0, params=None, source="", timeout=0):
        if kind == "pick_up_key" and actor == eid and target == near_key:   # the scout's request gets there first
            real_submit(tick, "pick_up_key", scout, near_key, source="player")
        return real_submit(tick, kind, actor, target, params, source, timeout)
    world.ledger.submit = racing_submit
    out = Outcomes(world)
    while "enter_cover" not in [k for k, _s, _r in out.of(eid)] and world.tick < 600:
        out.step()
    mine = out.of(eid)
    assert mine[0][0] == "pick_up_key" and mine[0][1] == REJECTED and "reserved" in mine[0][2]
    assert esper.component_for_entity(scout, Inventory).keys == 1
    # no door was tried before the guard held a key of its own: it replanned and fetched the far one
    assert [k for k, _s, _r in mine][:4] == ["pick_up_key", "pick_up_key", "open_door", "enter_cover"], mine
    assert mine[1][1] == CONFIRMED
    log = plan_log(world, eid)
    failed = next(i for i, line in enumerate(log) if line.startswith("step get_key: action #") and "reserved" in line)
    assert "real facts" in log[failed] and "the rest of the plan is dropped" in log[failed]
    assert log[failed + 1].startswith("htn take_cover: plan ['get_key', 'unlock_door', 'enter_cover']")
