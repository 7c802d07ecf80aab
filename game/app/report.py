"""`rts report FILE -o report.png`: a picture of a recorded match.

The replay is re-simulated from its recorded requests (no decider runs) and sampled every half second:
each team's total hit points and units alive; every death is counted at its tick. The commanders' decisions
come from the decision records and are drawn as markers (a taller one when a decision changed an order).

A match with an economy (buildings, workers, resource fields or a stockpile) gets a second column: per team, the
stockpile, the income (resources delivered per minute over the last minute, from ``Stockpile.gathered``), the army
value (each living unit's cost times its share of hit points, as game/victory.py scores it) and the buildings'
value (the same for buildings), with a mark where each building was completed or destroyed (found tick by tick),
and a labelled line on the army value where a team's planned strategy changed its posture (``postures``: from
its ``StrategyDecision`` records).
Rendered with matplotlib's Agg backend (no display needed).

Memory does not grow with the match: each line holds at most ``MAX_SAMPLES`` points (when full, every second
point goes and the sampling interval doubles, so the lines still run from the first sample to the last tick), the
marks (deaths, buildings, commander decisions, posture changes) at most ``MAX_MARKS`` each (when full, marks of one
kind closer than a doubling interval merge into the earliest), with exact totals counted beside them, and the
decision records are read one tick at a time (``replay.records.each``).
"""
from __future__ import annotations

from array import array

import esper

from components import Building, Health, ResourceField, Stockpile, Team, UnitKind, Worker
from saves.replay import apply_requests, step_loaded, world_at_keyframe

SAMPLE_TICKS = 15
INCOME_WINDOW = 60.0          # seconds of game time the income is averaged over
MAX_SAMPLES = 1024            # points per line, whatever the match's length (a 1000-1500 pixel wide chart)
MAX_MARKS = 2048              # marks of one kind (deaths, building events, commander decisions, posture changes)
SERIES = {"hp": "d", "alive": "q", "stock": "q", "gathered": "q", "army_value": "d", "building_value": "d",
          "buildings": "q"}   # per-team lines and their array type codes


class Sampler:
    """The report's lines, at most ``cap`` samples each, still spanning the whole match.

    A sample is due every ``step`` ticks (at first ``SAMPLE_TICKS``, on multiples of it) and always at the end;
    when the lines are full, every second sample goes (the first and the latest stay) and ``step`` doubles.

    >>> s = Sampler(1, cap=4, step=1)
    >>> for tick in range(10):
    ...     if s.due(tick, end=tick == 9):
    ...         s.add(tick, {"hp": [float(tick)]})
    >>> list(s.ticks), list(s.lines["hp"][0]), s.step
    ([0, 4, 8, 9], [0.0, 4.0, 8.0, 9.0], 4)
    """

    def __init__(self, teams: int, cap: int | None = None, step: int = SAMPLE_TICKS):
        cap = MAX_SAMPLES if cap is None else cap
        self.cap = max(2, cap - cap % 2)
        self.step = step
        self.next = None
        self.ticks = array("q")
        self.lines = {key: [array(code) for _ in range(teams)] for key, code in SERIES.items()}

    def due(self, tick: int, end: bool) -> bool:
        return end or (tick % self.step == 0 if self.next is None else tick >= self.next)

    def add(self, tick: int, values: dict) -> None:
        if len(self.ticks) >= self.cap:
            self.ticks = self.ticks[::2]
            for lines in self.lines.values():
                lines[:] = [line[::2] for line in lines]
            self.step *= 2
        self.ticks.append(tick)
        self.next = self.ticks[-1] + self.step
        for key, per_team in values.items():
            for line, value in zip(self.lines[key], per_team):
                line.append(value)


class Marks:
    """Marks on the chart (each a tuple whose first item is its tick), at most ``cap``: when full, marks alike
    but for their tick merge when they fall in one interval of a doubling width (the earliest stays).

    >>> m = Marks(cap=4)
    >>> for tick in range(8):
    ...     m.add(tick, "x")
    >>> m.items(), m.width
    ([(0, 'x'), (2, 'x'), (4, 'x'), (6, 'x')], 2)
    """

    def __init__(self, cap: int | None = None):
        self.cap = max(2, MAX_MARKS if cap is None else cap)
        self.width = 1
        self.marks: dict = {}

    def add(self, tick: int, *rest) -> None:
        key = (tick // self.width,) + rest
        if key in self.marks:
            return
        if len(self.marks) >= self.cap:
            while len(self.marks) > self.cap // 2:
                before = len(self.marks)
                self.width *= 2
                merged: dict = {}
                for mark in self.marks.values():
                    merged.setdefault((mark[0] // self.width,) + mark[1:], mark)
                self.marks = merged
                if len(merged) == before and self.width > tick:
                    break                        # all in one interval already: only the kinds are left apart
            key = (tick // self.width,) + rest
            if key in self.marks:
                return
        self.marks[key] = (tick,) + rest

    def items(self) -> list:
        return list(self.marks.values())


def _has_economy(world) -> bool:
    return any(True for _ in esper.get_component(Building)) or any(True for _ in esper.get_component(Worker)) \
        or any(True for _ in esper.get_component(ResourceField)) \
        or any(s.amount or s.gathered for _e, s in esper.get_component(Stockpile))


def income(ticks: list[int], gathered: list[int], hz: int, window: float = INCOME_WINDOW) -> list[float]:
    """Resources delivered per minute over the last ``window`` seconds (less at the start), at every sample.

    >>> income([0, 30, 60, 90], [0, 8, 8, 24], 30, window=2.0)
    [0.0, 480.0, 240.0, 480.0]
    """
    out = []
    j = 0
    for i, tick in enumerate(ticks):
        while ticks[j] < tick - window * hz:
            j += 1
        span = (tick - ticks[j]) / hz
        out.append(round((gathered[i] - gathered[j]) * 60.0 / span, 3) if span > 0 else 0.0)
    return out


def collect(replay, content, force: bool = False) -> dict:
    """Series for the report: ticks, per-team hp and alive counts, deaths, commander decisions; with an economy,
    per-team stockpile, gathered total, income, army value, buildings' value and count, and building events.
    Bounded whatever the match's length (see the module's docstring); ``lost``, ``built``, ``destroyed`` and
    ``decisions`` are the exact totals beside the (possibly merged) marks."""
    world = world_at_keyframe(replay, content, replay.start_tick, force)
    teams = [t.name for t in world.scenario.teams]
    n = len(teams)
    colors = [tuple(c / 255 for c in t.color) for t in world.scenario.teams]
    sampler = Sampler(n)
    deaths = Marks()
    events = Marks()          # (tick, team, building kind, "completed" | "destroyed")
    lost = [0] * n
    built = [0] * n
    destroyed = [0] * n
    units_def = content.units
    buildings_def = content.buildings
    prev_units = None
    prev_buildings = None
    economy = False
    try:
        end = replay.end_state_tick
        while True:
            world.activate()
            hp = [0.0] * n
            alive = [0] * n
            value = [0.0] * n
            living: dict[int, int] = {}
            for eid, (team, health, kind) in esper.get_components(Team, Health, UnitKind):
                t = team.team
                hp[t] += max(0.0, health.hp)
                alive[t] += 1
                living[eid] = t
                udef = units_def.get(kind.kind)
                if udef is not None and health.max_hp > 0:
                    value[t] += udef.cost * max(0.0, health.hp) / health.max_hp
            if prev_units is not None:
                for tick, t in sorted((world.tick, t) for eid, t in prev_units.items() if eid not in living):
                    deaths.add(tick, t)
                    lost[t] += 1
            prev_units = living
            standing: dict[int, tuple[int, str, bool]] = {}
            bvalue = [0.0] * n
            bcount = [0] * n
            for eid, (team, b) in esper.get_components(Team, Building):
                standing[eid] = (team.team, b.kind, b.done)
                health = esper.try_component(eid, Health)
                bdef = buildings_def.get(b.kind)
                if bdef is not None and health is not None and health.max_hp > 0:
                    bvalue[team.team] += bdef.cost * max(0.0, health.hp) / health.max_hp
                bcount[team.team] += b.done
            if prev_buildings is not None:
                for eid, (t, kind, done) in sorted(standing.items()):
                    was = prev_buildings.get(eid)
                    if done and (was is None or not was[2]):
                        events.add(world.tick, t, kind, "completed")
                        built[t] += 1
                for eid, (t, kind, _done) in sorted(prev_buildings.items()):
                    if eid not in standing:
                        events.add(world.tick, t, kind, "destroyed")
                        destroyed[t] += 1
            prev_buildings = standing
            if sampler.due(world.tick, end=world.tick >= end or world.over):
                economy = economy or _has_economy(world)
                stocks = {s.team: s for _e, s in esper.get_component(Stockpile)}
                sampler.add(world.tick, {
                    "hp": hp, "alive": alive,
                    "stock": [stocks[t].amount if t in stocks else 0 for t in range(n)],
                    "gathered": [stocks[t].gathered if t in stocks else 0 for t in range(n)],
                    "army_value": [round(v, 3) for v in value],
                    "building_value": [round(v, 3) for v in bvalue], "buildings": bcount})
            if world.tick >= end or world.over:
                break
            apply_requests(world, replay.requests.get(world.tick, []), replay.path)
            step_loaded(world, replay.path)
        summary = world.summary()
    finally:
        world.close()
    series = {"tick": sampler.ticks, **sampler.lines}
    series["income"] = [array("d", income(series["tick"], g, world.hz)) for g in series["gathered"]]
    decisions = Marks()       # (tick, team, the orders changed)
    counted = 0
    last: dict = {}
    for r in replay.records.each("commander"):
        orders = {tuple(o) for o in r.orders}
        changed = orders != last.get(r.team)
        last[r.team] = orders
        decisions.add(r.tick, r.team, changed)
        counted += 1
    postures = Marks()
    for tick, team, posture in posture_changes(replay.records.each("strategy")):
        postures.add(tick, team, posture)
    return {"teams": teams, "colors": colors, "series": series, "deaths": deaths.items(), "lost": lost,
            "hz": world.hz, "economy": economy, "building_events": events.items(), "built": built,
            "destroyed": destroyed, "postures": postures.items(), "decisions": counted,
            "commanders": [(team, tick, changed) for tick, team, changed in decisions.items()],
            "profiles": list(replay.header.get("commanders", [])), "summary": summary,
            "scenario": replay.header.get("scenario"), "seed": replay.header.get("seed")}


def posture_changes(records):
    """(tick, team, new posture) wherever a planned strategy's posture changed, in tick order (as ``records``
    come, one at a time).

    >>> from ai.records import StrategyDecision
    >>> recs = [StrategyDecision(tick=0, team=1, profile="p", posture_before=None, posture="economy", switch=True),
    ...         StrategyDecision(tick=15, team=1, profile="p", posture_before="economy", posture="economy"),
    ...         StrategyDecision(tick=30, team=1, profile="p", posture_before="economy", posture="attack", switch=True)]
    >>> list(posture_changes(recs))
    [(0, 1, 'economy'), (30, 1, 'attack')]
    """
    return ((r.tick, r.team, r.posture or "none") for r in records
            if r.switch and r.posture != r.posture_before)


def render(data: dict, out_path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hz = data["hz"]
    secs = [t / hz for t in data["series"]["tick"]]
    economy = data.get("economy", False)
    commanders = bool(data["commanders"]) or not economy
    if not economy:
        fig, (ax_hp, ax_alive, ax_cmd) = plt.subplots(3, 1, figsize=(10, 8), sharex=True,
                                                      gridspec_kw={"height_ratios": [3, 2, 1]})
    else:
        fig = plt.figure(figsize=(15, 10))
        grid = fig.add_gridspec(4, 2, height_ratios=[1, 1, 1, 1], hspace=0.12, wspace=0.2)
        ax_hp = fig.add_subplot(grid[0:2, 0])
        ax_alive = fig.add_subplot(grid[2, 0] if commanders else grid[2:4, 0], sharex=ax_hp)
        ax_cmd = fig.add_subplot(grid[3, 0], sharex=ax_hp) if commanders else None
        econ = [fig.add_subplot(grid[i, 1], sharex=ax_hp) for i in range(4)]
    summary = data["summary"]
    result = f"{summary['winner']} wins" if summary.get("winner") else "draw"
    why = f" by {summary['reason']}" if summary.get("reason") else ""
    fig.suptitle(f"{data['scenario']} (seed {data['seed']}): {result}{why} after {summary['ticks'] / hz:.0f} s")
    for t, name in enumerate(data["teams"]):
        color = data["colors"][t]
        lost = data["lost"][t]
        ax_hp.plot(secs, data["series"]["hp"][t], color=color, label=f"{name} ({lost} lost)")
        ax_alive.step(secs, data["series"]["alive"][t], where="post", color=color, label=name)
        death_times = [tick / hz for tick, team in data["deaths"] if team == t]
        if death_times:
            ax_alive.plot(death_times, [0] * len(death_times), "x", color=color, markersize=5)
    ax_hp.set_ylabel("army hit points" if not economy else "units' hit points")
    ax_hp.legend(loc="upper left" if economy else "upper right")
    ax_hp.grid(alpha=0.3)
    ax_alive.set_ylabel("units alive (x = a loss)")
    ax_alive.grid(alpha=0.3)
    if ax_cmd is not None:
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
    else:
        ax_alive.set_xlabel("game time (s)")
    if economy:
        _render_economy(data, econ, secs)
    if not economy:
        fig.tight_layout()
    else:
        for ax in [ax_hp] + econ[:-1]:
            ax.tick_params(labelbottom=False)
        if ax_cmd is not None:
            ax_alive.tick_params(labelbottom=False)
        fig.subplots_adjust(left=0.06, right=0.99, top=0.94, bottom=0.06)
    fig.savefig(out_path, dpi=100)
    plt.close(fig)


def _render_economy(data: dict, axes, secs: list[float]) -> None:
    """The economy column: stockpile, income, army value, buildings' value with completion/destruction marks."""
    import numpy as np
    from matplotlib.lines import Line2D

    hz = data["hz"]
    ser = data["series"]
    ax_stock, ax_income, ax_army, ax_build = axes
    for t, name in enumerate(data["teams"]):
        color = data["colors"][t]
        gathered = ser["gathered"][t][-1] if ser["gathered"][t] else 0
        ax_stock.plot(secs, ser["stock"][t], color=color, label=name)
        ax_income.plot(secs, ser["income"][t], color=color, label=f"{name} ({gathered} gathered in all)")
        ax_army.plot(secs, ser["army_value"][t], color=color, label=name)
        built, lost = data["built"][t], data["destroyed"][t]
        ax_build.plot(secs, ser["building_value"][t], color=color,
                      label=f"{name}: {built} built, {lost} lost, "
                            f"{ser['buildings'][t][-1] if ser['buildings'][t] else 0} at the end")
        for event, marker in (("completed", "^"), ("destroyed", "X")):
            times = [tick / hz for tick, team, _kind, what in data["building_events"] if team == t and what == event]
            if times and secs:
                ys = np.interp(times, secs, ser["building_value"][t])
                ax_build.plot(times, ys, marker, color=color, markeredgecolor="black", markeredgewidth=0.6,
                              markersize=7, linestyle="none")
    for tick, t, posture in data.get("postures", []):
        x = tick / hz
        ax_army.axvline(x, color=data["colors"][t], alpha=0.5, linewidth=1, linestyle="--")
        ax_army.annotate(posture, (x, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize="x-small",
                         va="top", ha="right", color=data["colors"][t])
    ax_stock.set_ylabel("stockpile")
    ax_stock.legend(loc="upper left")
    ax_income.set_ylabel(f"income\n(delivered / min,\nlast {INCOME_WINDOW:.0f} s)")
    ax_income.legend(loc="upper left")
    ax_army.set_ylabel("army value\n(units' cost x hp share;\n-- a posture change)")
    ax_build.set_ylabel("buildings' value\n(cost x hp share)")
    handles, labels = ax_build.get_legend_handles_labels()
    handles += [Line2D([], [], marker="^", color="grey", markeredgecolor="black", linestyle="none"),
                Line2D([], [], marker="X", color="grey", markeredgecolor="black", linestyle="none")]
    labels += ["a building completed", "a building destroyed"]
    ax_build.legend(handles, labels, loc="upper left", fontsize="small", ncol=2)
    rows = -(-len(labels) // 2)
    top = max((max(v) for v in ser["building_value"] if v), default=0.0) or 1.0
    ax_build.set_ylim(0, top * (1.08 + 0.17 * rows))      # headroom above the lines for the legend
    ax_build.set_xlabel("game time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax is not ax_build:
            ax.set_ylim(bottom=0)
