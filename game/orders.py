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
    spots = free_tiles_near(world, int(x), int(y), len(selected), set())
    for eid, (tx, ty) in zip(selected, spots):
        gx, gy = (x, y) if len(selected) == 1 else (tx + 0.5, ty + 0.5)
        actions.append(world.ledger.submit(world.tick, "move", eid, params={"x": float(gx), "y": float(gy)},
                                           source="player"))
    return actions
