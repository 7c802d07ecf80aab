"""`rts report FILE -o report.png`: a picture of a recorded match.

The replay is re-simulated from its recorded requests (no decider runs) and sampled every half second:
each team's total hit points and units alive; every death is counted at its tick. The commanders' decisions
come from the decision records and are drawn as markers (a taller one when a decision changed an order).
Rendered with matplotlib's Agg backend (no display needed).
"""
from __future__ import annotations

import esper

from ai.records import RecordIndex
from components import Health, Team
from saves.replay import apply_requests, world_at_keyframe

SAMPLE_TICKS = 15


def collect(replay, content, force: bool = False) -> dict:
    """Series for the report: ticks, per-team hp and alive counts, deaths, commander decisions."""
    world = world_at_keyframe(replay, content, replay.start_tick, force)
    teams = [t.name for t in world.scenario.teams]
    colors = [tuple(c / 255 for c in t.color) for t in world.scenario.teams]
    series = {"tick": [], "hp": [[] for _ in teams], "alive": [[] for _ in teams]}
    deaths: list[tuple[int, int]] = []
    prev = None
    try:
        end = replay.end_state_tick
        while True:
            world.activate()
            hp = [0.0] * len(teams)
            alive = [0] * len(teams)
            for _eid, (team, health) in esper.get_components(Team, Health):
                hp[team.team] += max(0.0, health.hp)
                alive[team.team] += 1
            if prev is not None:
                for t, (a, b) in enumerate(zip(prev, alive)):
                    deaths += [(world.tick, t)] * max(0, a - b)
            prev = alive
            if world.tick % SAMPLE_TICKS == 0 or world.tick >= end or world.over:
                series["tick"].append(world.tick)
                for t in range(len(teams)):
                    series["hp"][t].append(hp[t])
                    series["alive"][t].append(alive[t])
            if world.tick >= end or world.over:
                break
            apply_requests(world, replay.requests.get(world.tick, []), replay.path)
            world.step()
        summary = world.summary()
    finally:
        world.close()
    decisions = RecordIndex(replay.decisions, f"{replay.path}: decisions").all("commander")
    changes = set()
    last: dict = {}
    for r in decisions:
        orders = {tuple(o) for o in r.orders}
        if orders != last.get(r.team):
            changes.add((r.team, r.tick))
        last[r.team] = orders
    return {"teams": teams, "colors": colors, "series": series, "deaths": deaths, "hz": world.hz,
            "commanders": [(r.team, r.tick, (r.team, r.tick) in changes) for r in decisions],
            "profiles": list(replay.header.get("commanders", [])), "summary": summary,
            "scenario": replay.header.get("scenario"), "seed": replay.header.get("seed")}


def render(data: dict, out_path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hz = data["hz"]
    secs = [t / hz for t in data["series"]["tick"]]
    fig, (ax_hp, ax_alive, ax_cmd) = plt.subplots(3, 1, figsize=(10, 8), sharex=True,
                                                  gridspec_kw={"height_ratios": [3, 2, 1]})
    summary = data["summary"]
    result = f"{summary['winner']} wins" if summary.get("winner") else "draw"
    fig.suptitle(f"{data['scenario']} (seed {data['seed']}): {result} after {summary['ticks'] / hz:.0f} s")
    for t, name in enumerate(data["teams"]):
        color = data["colors"][t]
        lost = sum(1 for _tick, team in data["deaths"] if team == t)
        ax_hp.plot(secs, data["series"]["hp"][t], color=color, label=f"{name} ({lost} lost)")
        ax_alive.step(secs, data["series"]["alive"][t], where="post", color=color, label=name)
        death_times = [tick / hz for tick, team in data["deaths"] if team == t]
        if death_times:
            ax_alive.plot(death_times, [0] * len(death_times), "x", color=color, markersize=5)
    ax_hp.set_ylabel("army hit points")
    ax_hp.legend(loc="upper right")
    ax_hp.grid(alpha=0.3)
    ax_alive.set_ylabel("units alive (x = a loss)")
    ax_alive.grid(alpha=0.3)
    for t, name in enumerate(data["teams"]):
        color = data["colors"][t]
        ticks = [(tick / hz, changed) for team, tick, changed in data["commanders"] if team == t]
        if not ticks:
            continue
        ax_cmd.vlines([s for s, c in ticks if not c], t - 0.15, t + 0.15, color=color, alpha=0.4)
        ax_cmd.vlines([s for s, c in ticks if c], t - 0.4, t + 0.4, color=color, linewidth=2)
    profiles = data["profiles"] or [""] * len(data["teams"])
    ax_cmd.set_yticks(range(len(data["teams"])))
    ax_cmd.set_yticklabels([f"{n} ({p or 'no commander'})" for n, p in zip(data["teams"], profiles)])
    ax_cmd.set_ylim(-0.6, len(data["teams"]) - 0.4)
    ax_cmd.set_ylabel("commander\ndecisions")
    ax_cmd.set_xlabel("game time (s); tall marks: the orders changed")
    fig.tight_layout()
    fig.savefig(out_path, dpi=100)
    plt.close(fig)
