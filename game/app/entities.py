"""What the debugging tools say about teams, buildings, workers and their ledger actions at one tick.

`rts replay --to` lists every building and each team's economy beside the units (``economy_state``); `rts explain`
on an entity no brain drives (a worker, a building, a unit of a scripted strategy) has no decision record to read,
so it says what the entity is doing from the ledger instead (``explain_entity``, printed by ``entity_lines``).

Everything here only reads the (re-simulated) world: nothing is changed, no executor hook is called. Values that
come from a replay's action data are checked for their type before use, so a doctored file gives a "?" instead of
a traceback.
"""
from __future__ import annotations

import esper

from components import (Building, Health, Position, Rally, ResourceField, Stockpile, Team, UnitKind, Weapon,
                        Worker)
from game.economy import population_cap, population_used, touching
from game.ledger import ACCEPTED, HISTORY_TICKS, STARTED
from game.victory import team_scores
from systems.actions.gather import MINING, TO_DROP, TO_FIELD

PRODUCTION = "production"        # a building's queue lane (systems/actions/train.py)
RECENT = 6                       # finished actions shown per entity

GATHER_PHASES = {TO_FIELD: "walking to the field", MINING: "mining", TO_DROP: "carrying the load to a drop-off"}


def _int(value):
    return value if type(value) is int else None


def _num(value):
    return value if type(value) in (int, float) else None


def _comp(eid, cls):
    return esper.try_component(eid, cls) if esper.entity_exists(eid) else None


def has_economy(world) -> bool:
    """Does the match have an economy: buildings, workers or fields, or a stockpile with anything in it?"""
    world.activate()
    if any(True for _ in esper.get_component(Building)) or any(True for _ in esper.get_component(Worker)) \
            or any(True for _ in esper.get_component(ResourceField)):
        return True
    return any(s.amount or s.gathered for _e, s in esper.get_component(Stockpile))


def _held_stock(action) -> int:
    """The resources an action holds of its team's stockpile (a cost not paid yet)."""
    return sum(r[-1] for r in action.reservations
               if isinstance(r, list) and len(r) >= 3 and r[0] == "stock" and type(r[-1]) is int)


# -- teams ----------------------------------------------------------------------------------------------------
def team_states(world) -> list[dict]:
    """Each team's economy: stockpile (and what waiting actions hold of it), everything gathered, population
    used and cap, score (game/victory.py), units and buildings."""
    world.activate()
    stocks = {s.team: s for _e, s in esper.get_component(Stockpile)}
    scores = team_scores(world)
    units = world.alive_per_team()
    built = [0] * len(scores)
    building = [0] * len(scores)
    for _e, (b, t) in esper.get_components(Building, Team):
        if 0 <= t.team < len(scores):
            if b.done:
                built[t.team] += 1
            else:
                building[t.team] += 1
    out = []
    for t, team in enumerate(world.scenario.teams):
        stock = stocks.get(t)
        held = world.ledger.held_amount(("stock", t))
        try:
            used = population_used(world, t)
        except KeyError:                   # a training of a unit type the content lacks (a doctored replay)
            used = None
        out.append({"team": t, "name": team.name,
                    "stockpile": stock.amount if stock else None, "held": held,
                    "available": stock.amount - held if stock else None,
                    "gathered": stock.gathered if stock else None,
                    "population": used, "population_cap": population_cap(world, t),
                    "score": scores[t], "units": units[t], "buildings": built[t], "under_construction": building[t]})
    return out


# -- buildings ------------------------------------------------------------------------------------------------
def production_entry(world, action, position: int) -> dict:
    """One entry of a building's production queue: the unit, where it stands, its cost (held while it waits,
    paid once training starts) and the training's progress."""
    unit = action.params.get("unit")
    udef = world.content.units.get(unit) if isinstance(unit, str) else None
    data = action.data
    entry = {"action": action.id, "kind": action.kind, "unit": unit if isinstance(unit, str) else None,
             "state": action.state, "cost": udef.cost if udef else None, "held": _held_stock(action),
             "paid": None, "progress": None, "ticks_left": None, "since": action.submit_tick}
    if action.kind != "train":
        entry["status"] = action.state
    elif action.state == STARTED:
        left, total = _int(data.get("left")), _int(data.get("total"))
        entry["paid"] = _int(data.get("paid"))
        entry["since"] = action.start_tick
        entry["ticks_left"] = left
        if left is not None and total:
            entry["progress"] = round(min(1.0, max(0.0, 1.0 - left / total)), 3)
        entry["status"] = "training"
    elif position == 0 and action.state == ACCEPTED:
        team = _comp(action.actor, Team)
        entry["status"] = "waiting"
        if team is not None and udef is not None:
            try:
                used = population_used(world, team.team)
            except KeyError:
                used = None
            cap = population_cap(world, team.team)
            if used is not None and used + udef.population > cap:
                entry["status"] = f"waiting for population room ({used}/{cap})"
    else:
        entry["status"] = "queued"
    entry["text"] = _production_text(entry)
    return entry


def _production_text(e: dict) -> str:
    what = e["unit"] or "?"
    if e["status"] == "training":
        pct = f" {e['progress']:.0%}" if e["progress"] is not None else ""
        left = f", {e['ticks_left']} ticks left" if e["ticks_left"] is not None else ""
        paid = f", paid {e['paid']}" if e["paid"] else ""
        return f"{what}: training{pct}{left}{paid} [{e['kind']}#{e['action']}]"
    cost = f", {e['held']} held" if e["held"] else ""
    return f"{what}: {e['status']}{cost} [{e['kind']}#{e['action']}]"


def building_state(world, eid: int) -> dict:
    """A building: its kind, team, tiles, hit points, construction (progress, the workers on it), production queue
    and rally point."""
    world.activate()
    b = esper.component_for_entity(eid, Building)
    team = esper.try_component(eid, Team)
    health = esper.try_component(eid, Health)
    rally = esper.try_component(eid, Rally)
    weapon = esper.try_component(eid, Weapon)
    need = b.work_needed
    progress = 1.0 if b.done else (min(1.0, max(0.0, b.work / need)) if need > 0 else 0.0)
    builders = sorted(a.actor for a in world.ledger.active_sorted()
                      if a.kind == "build" and a.state == STARTED and a.data.get("site") == eid)
    bdef = world.content.buildings.get(b.kind)
    queue = [production_entry(world, a, i) for i, a in enumerate(world.ledger.queue_of(eid, PRODUCTION))]
    return {"entity": eid, "team": team.team if team else None, "kind": b.kind,
            "name": bdef.name if bdef else b.kind, "tiles": [b.tx, b.ty, b.w, b.h],
            "hp": round(health.hp, 1) if health else None, "max_hp": round(health.max_hp, 1) if health else None,
            "complete": b.done, "progress": round(progress, 3), "work": b.work, "work_needed": need,
            "builders": builders, "queue": queue, "queue_size": _queue_size(world),
            "rally": [round(rally.x, 2), round(rally.y, 2)] if rally is not None and rally.on else None,
            "firing_at": (weapon.target or None) if weapon is not None else None}


def _queue_size(world) -> int | None:
    executor = world.ledger.executors.get("train")
    return getattr(executor, "queue", None)


def building_states(world) -> list[dict]:
    world.activate()
    return [building_state(world, eid) for eid, _b in sorted(esper.get_component(Building))]


def building_status(s: dict, queue: bool = True) -> str:
    """One line: construction or completeness, the production queue (with ``queue``), the rally point."""
    if s["complete"]:
        parts = ["complete"]
    else:
        who = f", workers {', '.join(map(str, s['builders']))}" if s["builders"] else ", nobody building"
        parts = [f"under construction {s['progress']:.0%} ({s['work']}/{s['work_needed']} builder-ticks{who})"]
    if queue and s["queue"]:
        parts.append(f"queue {len(s['queue'])}: " + "; ".join(e["text"] for e in s["queue"]))
    if s["rally"]:
        parts.append(f"rally ({s['rally'][0]:.1f}, {s['rally'][1]:.1f})")
    if s["firing_at"]:
        parts.append(f"firing at {s['firing_at']}")
    return ", ".join(parts)


def worker_state(world, eid: int) -> dict | None:
    w = _comp(eid, Worker)
    if w is None:
        return None
    return {"carrying": w.carrying, "capacity": w.capacity, "field": w.field or None, "mining": w.mining,
            "mine_ticks": w.mine_ticks, "can_build": w.can_build}


def economy_state(world) -> dict:
    """What `rts replay --to` adds for an economy: each team's stockpile and population, every building, and
    every worker's load (by entity)."""
    world.activate()
    return {"teams": team_states(world), "building_list": building_states(world),
            "loads": {eid: [w.carrying, w.capacity] for eid, w in sorted(esper.get_component(Worker))}}


# -- actions --------------------------------------------------------------------------------------------------
def _who(world, eid: int) -> str:
    """'Red rifleman 45' / 'Blue hq 33' / 'field 7' / 'entity 9 (gone)'."""
    if not esper.entity_exists(eid):
        return f"entity {eid} (gone)"
    team = esper.try_component(eid, Team)
    name = world.scenario.teams[team.team].name if team is not None and 0 <= team.team < len(world.scenario.teams) \
        else None
    kind = esper.try_component(eid, UnitKind)
    b = esper.try_component(eid, Building)
    if kind is not None or b is not None:
        return f"{name or 'team ?'} {kind.kind if kind is not None else b.kind} {eid}"
    if esper.has_component(eid, ResourceField):
        return f"field {eid}"
    return f"entity {eid}"


def describe_action(world, action) -> dict:
    """An active action of an entity as plain data, with a ``text`` line that says what it is doing now."""
    world.activate()
    out = {"id": action.id, "kind": action.kind, "state": action.state, "target": action.target,
           "params": dict(action.params), "source": action.source, "submit_tick": action.submit_tick,
           "start_tick": action.start_tick, "detail": {}}
    head = f"{action.kind}#{action.id} (" + \
        (f"started at tick {action.start_tick}" if action.state == STARTED else
         f"{action.state}, submitted at tick {action.submit_tick}") + \
        (f" by {action.source}" if action.source else "") + ")"
    describe = _DESCRIBE.get(action.kind)
    if action.state != STARTED and action.kind not in ("train",):
        text = "waiting to start"
    elif describe is not None:
        text = describe(world, action, out["detail"])
    else:
        text = _describe_other(world, action, out["detail"])
    out["text"] = f"{head}: {text}"
    return out


def _describe_gather(world, action, d: dict) -> str:
    data = action.data
    field = _comp(action.target, ResourceField)
    d["field"] = action.target
    if field is not None:
        d.update(field_tile=[field.tx, field.ty], field_left=field.amount, field_slots=field.slots,
                 field_workers=world.ledger.held_amount(("field", action.target)))
        where = (f"field {action.target} at ({field.tx}, {field.ty}), {field.amount} left, "
                 f"{d['field_workers']} of {field.slots} slots taken")
    else:
        where = f"field {action.target} (mined out)"
    phase = _int(data.get("phase"))
    d["phase"] = GATHER_PHASES.get(phase, "?")
    worker = _comp(action.actor, Worker)
    parts = [where, d["phase"]]
    if phase == MINING and worker is not None:
        parts[-1] += f" (the next unit in {max(0, worker.mine_ticks - worker.mining)} ticks)"
    if phase == TO_DROP and _int(data.get("drop")):
        d["drop"] = data["drop"]
        parts[-1] += f" ({_who(world, data['drop'])})"
    if worker is not None:
        d["carrying"] = worker.carrying
        d["capacity"] = worker.capacity
        parts.append(f"carrying {worker.carrying}/{worker.capacity}")
    delivered = _int(data.get("delivered"))
    d["delivered"] = delivered
    loads = _int(action.params.get("loads"))
    d["loads"] = loads
    if delivered is not None:
        parts.append(f"{delivered} load{'s' if delivered != 1 else ''} delivered so far" +
                     (f" of {loads}" if loads else ""))
    return "; ".join(parts)


def _describe_build(world, action, d: dict) -> str:
    data = action.data
    site = _int(data.get("site")) or action.target
    d["site"] = site or None
    if site:
        b = _comp(site, Building)
        if b is None:
            return f"the site {site} was destroyed"
        need = b.work_needed
        progress = min(1.0, b.work / need) if need > 0 else 0.0
        helpers = sum(1 for a in world.ledger.active_sorted()
                      if a.kind == "build" and a.state == STARTED and a.data.get("site") == site)
        d.update(building=b.kind, tiles=[b.tx, b.ty, b.w, b.h], progress=round(progress, 3), work=b.work,
                 work_needed=need, workers=helpers, paid=True)
        pos = _comp(action.actor, Position)
        inside = pos is not None and b.tx <= pos.x < b.tx + b.w and b.ty <= pos.y < b.ty + b.h
        at_site = pos is not None and not inside and touching(b.tx, b.ty, b.w, b.h, pos.x, pos.y)
        d["at_site"] = at_site
        verb = "constructing" if at_site else "walking to"
        return (f"{verb} {_who(world, site)} at tiles ({b.tx}, {b.ty}) {b.w}x{b.h}: {progress:.0%} built "
                f"({b.work}/{need} builder-ticks, {helpers} worker{'s' if helpers != 1 else ''} on it)")
    kind = action.params.get("building")
    x, y = _int(action.params.get("x")), _int(action.params.get("y"))
    held = _held_stock(action)
    d.update(building=kind if isinstance(kind, str) else None, tiles=[x, y], held=held, paid=False)
    waited = _int(data.get("waited")) or 0
    if data.get("at") and waited:
        now = f"waiting {waited / world.hz:.1f} s for units to leave the site"
    else:
        now = "walking to the site"
    return f"a new {kind} at tile ({x}, {y}), not placed yet ({held} held for its cost): {now}"


def _describe_return(world, action, d: dict) -> str:
    drop = _int(action.data.get("drop"))
    worker = _comp(action.actor, Worker)
    d["drop"] = drop
    load = f"carrying {worker.carrying}/{worker.capacity}" if worker is not None else "carrying ?"
    d["carrying"] = worker.carrying if worker is not None else None
    return f"{load} to {_who(world, drop) if drop else 'the nearest drop-off'}"


def _describe_train(world, action, d: dict) -> str:
    queue = world.ledger.queue_of(action.actor, PRODUCTION)
    position = next((i for i, a in enumerate(queue) if a.id == action.id), 0)
    entry = production_entry(world, action, position)
    d.update({k: entry[k] for k in ("unit", "status", "cost", "held", "paid", "progress", "ticks_left")})
    return entry["text"].split(" [")[0]


def _describe_attack(world, action, d: dict) -> str:
    target = action.target
    health = _comp(target, Health)
    weapon = _comp(action.actor, Weapon)
    firing = weapon is not None and weapon.target == target
    d["firing"] = firing
    d["target_hp"] = round(health.hp, 1) if health is not None else None
    hp = f", {health.hp:.0f}/{health.max_hp:.0f} hp" if health is not None else ""
    return f"{'firing at' if firing else 'closing in on'} {_who(world, target)}{hp}"


def _describe_point(world, action, d: dict) -> str:
    x, y = _num(action.params.get("x")), _num(action.params.get("y"))
    d["to"] = [x, y]
    return f"to ({x}, {y})" if x is not None and y is not None else "to ?"


def _describe_other(world, action, d: dict) -> str:
    parts = []
    if action.target:
        parts.append(f"target {_who(world, action.target)}")
    if action.params:
        parts.append(", ".join(f"{k} {v}" for k, v in sorted(action.params.items())))
    return "; ".join(parts) or "running"


_DESCRIBE = {"gather": _describe_gather, "build": _describe_build, "return": _describe_return,
             "train": _describe_train, "attack": _describe_attack, "move": _describe_point,
             "attack_move": _describe_point, "set_rally": _describe_point}


def finished_action(action) -> dict:
    return {"id": action.id, "kind": action.kind, "state": action.state, "reason": action.reason,
            "target": action.target, "params": dict(action.params), "source": action.source,
            "submit_tick": action.submit_tick, "start_tick": action.start_tick, "end_tick": action.end_tick}


def _finished_text(a: dict) -> str:
    started = f", started at tick {a['start_tick']}" if a["start_tick"] >= 0 else ""
    target = f" on {a['target']}" if a["target"] else ""
    params = " (" + ", ".join(f"{k} {v}" for k, v in sorted(a["params"].items())) + ")" if a["params"] else ""
    return (f"tick {a['end_tick']}: {a['kind']}#{a['id']}{target}{params} {a['state']}"
            f"{': ' + a['reason'] if a['reason'] else ''} (submitted at tick {a['submit_tick']}{started})")


# -- an entity explained from the ledger ----------------------------------------------------------------------
def explain_entity(world, eid: int, history_from: int) -> dict | None:
    """What a unit or building without decision records is doing at ``world.tick``, from the ledger: its active
    actions (a worker's gathering or building, a building's production queue) and the last finished ones the
    ledger still holds. ``history_from``: the tick the re-simulation started at (the ledger knows no finished
    action from before it). None when the entity is neither a unit nor a building and the ledger has nothing of it."""
    world.activate()
    ledger = world.ledger
    tick = world.tick
    exists = esper.entity_exists(eid)
    is_unit = exists and esper.has_component(eid, UnitKind) and esper.has_component(eid, Health)
    is_building = exists and esper.has_component(eid, Building)
    recent = sorted((a for a in ledger.actions.values() if a.actor == eid and a.done),
                    key=lambda a: (a.end_tick, a.id))[-RECENT:]
    if not (is_unit or is_building) and not recent:
        return None
    out = {"basis": "ledger", "entity": eid, "tick": tick, "time": tick / world.hz, "exists": bool(is_unit or
           is_building), "what": "building" if is_building else ("unit" if is_unit else None),
           "team": None, "team_name": None, "type": None, "hp": None, "max_hp": None, "x": None, "y": None,
           "worker": None, "building": None, "actions": [], "recent": [finished_action(a) for a in recent],
           "history_from": _history_from(tick, history_from), "keeps_ticks": HISTORY_TICKS}
    if not out["exists"]:
        return out
    team = esper.try_component(eid, Team)
    if team is not None:
        out["team"] = team.team
        if 0 <= team.team < len(world.scenario.teams):
            out["team_name"] = world.scenario.teams[team.team].name
    health = esper.component_for_entity(eid, Health) if esper.has_component(eid, Health) else None
    if health is not None:
        out["hp"], out["max_hp"] = round(health.hp, 1), round(health.max_hp, 1)
    pos = esper.try_component(eid, Position)
    if pos is not None:
        out["x"], out["y"] = round(pos.x, 2), round(pos.y, 2)
    if is_building:
        out["building"] = building_state(world, eid)
        out["type"] = out["building"]["kind"]
    else:
        out["type"] = esper.component_for_entity(eid, UnitKind).kind
        out["worker"] = worker_state(world, eid)
    actions = sorted((ledger.actions[aid] for (who, lane), ids in ledger.lanes.items()
                      if who == eid and lane != PRODUCTION for aid in ids), key=lambda a: a.id)
    out["actions"] = [describe_action(world, a) for a in actions]
    return out


def _history_from(tick: int, start: int) -> int:
    """The first tick from which the ledger still holds every finished action at ``tick``: the re-simulation's
    start, or what the ledger's last pruning (every 64 ticks, of actions that ended over ``HISTORY_TICKS``
    earlier) kept."""
    last = tick - 1 - (tick - 1) % 64 if tick > 0 else 0
    return max(start, last - HISTORY_TICKS) if last > start else start


def entity_lines(e: dict) -> list[str]:
    """``explain_entity``'s answer in words, one line per fact."""
    who = f"{e['team_name'] or 'team ' + str(e['team'])} {e['type']}" if e["exists"] else None
    head = f"entity {e['entity']} at tick {e['tick']} ({e['time']:.2f} s of game time)"
    if not e["exists"]:
        out = [f"{head}: no unit or building has this id now (destroyed, or not made yet); it made no decisions, "
               "but the ledger still holds its last actions"]
    else:
        out = [f"{head}: a {who}; no brain drives it (no decision records), so this is what the ledger says"]
        out.append(f"  hp {e['hp']}/{e['max_hp']} at ({e['x']}, {e['y']})")
    w = e["worker"]
    if w is not None:
        mining = f", {w['mining']}/{w['mine_ticks']} ticks into the next unit" if w["mining"] else ""
        field = f" from field {w['field']}" if w["field"] else ""
        out.append(f"  carrying {w['carrying']}/{w['capacity']}{field}{mining}")
    b = e["building"]
    if b is not None:
        tx, ty, bw, bh = b["tiles"]
        out.append(f"  {b['name']} on tiles ({tx}, {ty}) to ({tx + bw - 1}, {ty + bh - 1}); {building_status(b, queue=False)}")
        size = f" (at most {b['queue_size']})" if b["queue_size"] else ""
        if b["queue"]:
            out.append(f"production queue{size}:")
            for i, entry in enumerate(b["queue"], 1):
                out.append(f"  {i}. {entry['text']}")
        elif b["complete"]:
            out.append("production queue: empty")
    if e["exists"]:
        if e["actions"]:
            for a in e["actions"]:
                out.append(f"doing: {a['text']}")
        elif b is None:
            out.append("doing: nothing (no active action in the ledger)")
    r = e.get("reflex")
    if r is not None:
        target = f" {r['target']}" if r["target"] else ""
        out.append(f"on its own (stance {r['stance']}) at tick {r['tick']}: {r['trigger']} -> {r['action']}{target}, "
                   "without an order")
    if e["recent"]:
        out.append(f"last finished actions (the ledger keeps them {e['keeps_ticks']} ticks; known from tick "
                   f"{e['history_from']}):")
        for a in e["recent"]:
            out.append(f"  {_finished_text(a)}")
    else:
        out.append(f"no finished actions since tick {e['history_from']}")
    return out
