"""Player commands turned into ledger submissions (no drawing here, so it is testable headless)."""
from __future__ import annotations

import math

import esper

from components import Health, Position, Selectable, Team
from game.scenario import free_tiles_near


def units_in_box(world, team: int, x0: float, y0: float, x1: float, y1: float) -> list[int]:
    """Own living units whose centre lies in the box (world tile units), ascending id."""
    lx, hx = sorted((x0, x1))
    ly, hy = sorted((y0, y1))
    world.activate()
    return sorted(eid for eid, (t, pos, _h) in esper.get_components(Team, Position, Health)
                  if t.team == team and lx <= pos.x <= hx and ly <= pos.y <= hy)


def unit_at(world, x: float, y: float, team: int | None = None, exclude_team: int | None = None) -> int | None:
    """The living unit under (x, y) (within its radius plus a little slack), nearest first."""
    world.activate()
    best = None
    for eid, (t, pos, sel, _h) in esper.get_components(Team, Position, Selectable, Health):
        if team is not None and t.team != team:
            continue
        if exclude_team is not None and t.team == exclude_team:
            continue
        d = math.hypot(pos.x - x, pos.y - y)
        if d <= sel.radius + 0.25 and (best is None or (d, eid) < best):
            best = (d, eid)
    return None if best is None else best[1]


def _spread(world, selected: list[int], x: float, y: float) -> list[tuple[int, float, float]]:
    """Each selected unit's own spot near (x, y): a group spreads over the nearest free tiles."""
    spots = free_tiles_near(world, int(x), int(y), len(selected), set())
    out = []
    for eid, (tx, ty) in zip(selected, spots):
        gx, gy = (x, y) if len(selected) == 1 else (tx + 0.5, ty + 0.5)
        out.append((eid, float(gx), float(gy)))
    return out


def live(world, selected: list[int]) -> list[int]:
    world.activate()
    return [eid for eid in selected if esper.entity_exists(eid) and esper.has_component(eid, Health)]


def attack_move(world, selected: list[int], x: float, y: float) -> list:
    """Walk there, fighting whatever comes within range on the way."""
    return [world.ledger.submit(world.tick, "attack_move", eid, params={"x": gx, "y": gy}, source="player")
            for eid, gx, gy in _spread(world, live(world, selected), x, y)]


def stop(world, selected: list[int]) -> int:
    """Cancel what the units are doing. Returns how many had something to cancel."""
    n = 0
    for eid in live(world, selected):
        action = world.ledger.current(eid)
        if action is not None:
            world.ledger.cancel(action.id, "stopped by player")
            n += 1
    return n


def hold(world, selected: list[int]) -> list:
    """Stand still and fire at enemies in range without chasing them."""
    return [world.ledger.submit(world.tick, "hold", eid, source="player") for eid in live(world, selected)]


def reload(world, selected: list[int]) -> list:
    return [world.ledger.submit(world.tick, "reload", eid, source="player") for eid in live(world, selected)]


def order_at(world, team: int, selected: list[int], x: float, y: float) -> list:
    """Right-click at (x, y): attack the enemy there, else move there. Returns the submitted actions."""
    enemy = unit_at(world, x, y, exclude_team=team)
    selected = [eid for eid in selected if esper.entity_exists(eid)]
    actions = []
    if enemy is not None:
        for eid in selected:
            actions.append(world.ledger.submit(world.tick, "attack", eid, enemy, source="player"))
        return actions
    # spread a group over the free tiles nearest the click instead of stacking it on one point
    for eid, gx, gy in _spread(world, selected, x, y):
        actions.append(world.ledger.submit(world.tick, "move", eid, params={"x": gx, "y": gy}, source="player"))
    return actions
