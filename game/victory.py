"""How a match ends: sides eliminated, headquarters fallen, or the time limit decided by score.

Teams with the same ``side`` in the scenario are allies; a side is standing while any of its teams is. A team
stands while it has a unit or a building (victory "elimination"), and under victory "headquarters" only while it
also has a headquarters (complete or being built). The match ends when at most one side stands (it wins; none:
a draw), or at the time limit, where the side with the highest score wins and equal scores are a draw.

A team's score is its army value (each living unit's cost times its share of hit points left), plus its
buildings' value (cost times share of hit points), plus its stockpile. A side's score is its teams' sum.
"""
from __future__ import annotations

import esper

from components import Building, Health, Stockpile, Team, UnitKind

ELIMINATION = "elimination"
HEADQUARTERS = "headquarters"
TIME_LIMIT = "time limit"


def sides(world) -> list[int]:
    """Each team's side (an ally group), by team index."""
    return [t.side if t.side >= 0 else i for i, t in enumerate(world.scenario.teams)]


def standing_teams(world) -> list[bool]:
    """Per team: does it still stand (a unit or a building; under the headquarters rule, and a headquarters).
    Kept while esper hands out the same cached unit and building rows (none came or went: ``World.kept``); the
    units are ``World.alive_per_team``'s counts (after deaths alone, the dead taken off)."""
    world.activate()
    units = esper.get_components(Team, Health, UnitKind)
    buildings = esper.get_components(Team, Building)

    def standing() -> tuple[bool, ...]:
        n = len(world.scenario.teams)
        has_unit = [count > 0 for count in world.alive_per_team()]
        has_building = [False] * n
        has_hq = [False] * n
        defs = world.content.buildings
        for _eid, (team, b) in buildings:
            has_building[team.team] = True
            bdef = defs.get(b.kind)
            if bdef is not None and bdef.headquarters:
                has_hq[team.team] = True
        if world.scenario.victory == HEADQUARTERS:
            return tuple((u or b) and hq for u, b, hq in zip(has_unit, has_building, has_hq))
        return tuple(u or b for u, b in zip(has_unit, has_building))

    return list(world.kept("standing", (units, buildings, world.content), standing))


def team_scores(world) -> list[float]:
    """Army value + buildings' value + stockpile, per team."""
    world.activate()
    scores = [0.0] * len(world.scenario.teams)
    units = world.content.units
    for _eid, (team, health, kind) in esper.get_components(Team, Health, UnitKind):
        udef = units.get(kind.kind)
        if udef is not None:
            scores[team.team] += udef.cost * max(0.0, health.hp) / health.max_hp
    defs = world.content.buildings
    for _eid, (team, health, b) in esper.get_components(Team, Health, Building):
        bdef = defs.get(b.kind)
        if bdef is not None:
            scores[team.team] += bdef.cost * max(0.0, health.hp) / health.max_hp
    for _eid, stock in esper.get_component(Stockpile):
        if 0 <= stock.team < len(scores):
            scores[stock.team] += stock.amount
    return [round(s, 6) for s in scores]


def side_scores(world) -> dict[int, float]:
    out: dict[int, float] = {}
    for side, score in zip(sides(world), team_scores(world)):
        out[side] = round(out.get(side, 0.0) + score, 6)
    return out


def check(world) -> tuple[bool, int | None, str]:
    """(over, winning side or None, reason) for the world as it stands after a tick."""
    side_of = sides(world)
    standing = sorted({side_of[t] for t, up in enumerate(standing_teams(world)) if up})
    if len(standing) <= 1:
        reason = HEADQUARTERS if world.scenario.victory == HEADQUARTERS else ELIMINATION
        return True, (standing[0] if standing else None), reason
    if world.tick >= world.max_ticks:
        scores = side_scores(world)
        best = max(scores[s] for s in standing)
        leaders = [s for s in standing if scores[s] == best]
        return True, (leaders[0] if len(leaders) == 1 else None), TIME_LIMIT
    return False, None, ""
