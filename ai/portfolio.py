"""Portfolio Greedy Search over scripted squad behaviours, in the abstract model of ai/tactics.

After Churchill and Buro, *Portfolio Greedy Search and Simulation for Large-Scale Combat in StarCraft*
(CIG 2013; SparCraft's ``PortfolioGreedySearch``), with groups (squads per region) in place of units and
region-level scripts in place of unit scripts. Rules, defaults and tie-breaks: docs/rules/commander.md, section 7b.

**Portfolio**: scripts a group can follow for a whole playout, each choosing a (task, region) in every round
from the state it sees then (``script_action``): ``attack_nearest`` (the scripted commander's attack-nearest),
``attack_weakest`` (the live enemy group with the fewest hit points), ``retreat`` (kite: step to the
neighbouring region farthest from the enemy when one is within a hop, else hold), ``hold`` and ``regroup``
(join the strongest friendly group).

**Search**: every group of both sides starts on the portfolio's first script (SparCraft's default, attack
nearest); each side's *seed* is the one script for all its groups that scores best against the other side's
default; then ``iterations`` passes of greedy improvement, one group at a time, each trying every script with
the others fixed and keeping a strictly better one; with ``responses`` > 0 the opponent improves its own
assignment against ours that many times, and ours is improved again after each. A value is one *playout*:
every group follows its script for ``horizon`` rounds (assign, *simulate t*), then ``evaluate``; with hidden
groups sampled (``samples`` determinizations, ai/tactics ``determinize``) a value is the mean over the same
``samples`` sampled states, each one playout. The budget is ``playouts``: the search stops (keeping its best
assignment so far) before an evaluation would exceed it — deterministic, never a clock.

Nothing here knows the game; it reuses ai/tactics' model. Example (the two-group line of ai/tactics):

    >>> from ai.tactics import GroupSpec, Model, new_state
    >>> model = Model(((1,), (0, 2), (1,)))
    >>> specs = [GroupSpec("blue", 0, 200.0, 10.0), GroupSpec("red", 1, 100.0, 10.0)]
    >>> d = portfolio_search(model, specs, new_state([0, 1], [200.0, 100.0]), 0, playouts=100)
    >>> d.algorithm, d.actions                            # blue holds where it is (its first action)...
    ('portfolio', {0: (0, 0)})
    >>> d.stats                                           # ...expecting the weaker red to keep away
    [['blue retreat', 4, 0.6667], ['red retreat', 0, 0.6667]]
"""
from __future__ import annotations

from ai.tactics import (ATTACK, HOLD, MOVE, Decision, Model, State, alive_teams, assign, determinize, evaluate,
                        scripted_action, simulate)

SCRIPTS = ("attack_nearest", "attack_weakest", "retreat", "hold", "regroup")
UNREACHABLE = 10 ** 6


def _toward(model: Model, specs, state: State, g: int, goal: int) -> tuple[int, int]:
    """Attack when ``goal`` is the group's own region, hold when it cannot get there, else one hop toward it."""
    r = state.region[g]
    if goal == r:
        return (ATTACK, r)
    if model.hops[r, goal] >= UNREACHABLE or not specs[g].mobile:
        return (HOLD, r)
    return (MOVE, int(model.nexthop[r, goal]))


def script_action(model: Model, specs, state: State, g: int, script: str) -> tuple[int, int]:
    """The (task, region) ``script`` picks for group ``g`` in ``state``; a destroyed group holds.

    >>> from ai.tactics import GroupSpec, new_state
    >>> model = Model(((1,), (0, 2), (1, 3), (2,)))                # a row: 0 - 1 - 2 - 3
    >>> specs = [GroupSpec("b", 0, 100.0, 10.0), GroupSpec("r1", 1, 100.0, 10.0), GroupSpec("r2", 1, 100.0, 10.0)]
    >>> s = new_state([1, 2, 3], [100.0, 90.0, 20.0])
    >>> [script_action(model, specs, s, 0, name) for name in SCRIPTS]
    [(2, 2), (2, 2), (2, 0), (0, 1), (0, 1)]
    """
    r = state.region[g]
    if state.hp[g] <= 0:
        return (HOLD, r)
    if script == "attack_nearest":
        return scripted_action(model, specs, state, g)
    team = specs[g].team
    if script == "attack_weakest":
        best = None
        for h, spec in enumerate(specs):
            if spec.team != team and state.hp[h] > 0:
                d = int(model.hops[r, state.region[h]])
                if d < UNREACHABLE and (best is None or (state.hp[h], d, h) < best):
                    best = (state.hp[h], d, h)
        return (HOLD, r) if best is None else _toward(model, specs, state, g, state.region[best[2]])
    if script == "retreat":
        enemies = [state.region[h] for h, spec in enumerate(specs) if spec.team != team and state.hp[h] > 0]
        near = min((int(model.hops[r, e]) for e in enemies), default=UNREACHABLE)
        if near > 1 or not specs[g].mobile:
            return (HOLD, r)
        friends = [state.region[h] for h, spec in enumerate(specs) if spec.team == team and h != g and state.hp[h] > 0]

        def key(n):                              # farthest from the nearest enemy; then nearer friends; stay; lower
            return (min(int(model.hops[n, e]) for e in enemies),              # rank (model.tie: fair on mirrors)
                    -min((int(model.hops[n, f]) for f in friends), default=0), n == r, -model.tie[n])
        best = (key(r), r)
        for n in model.adjacency[r]:
            if key(n) > best[0]:
                best = (key(n), n)
        best = (None, None, best[1])
        return (HOLD, r) if best[2] == r else (MOVE, best[2])
    if script == "hold":
        return (HOLD, r)
    if script == "regroup":
        best = None
        for h, spec in enumerate(specs):
            if spec.team == team and state.hp[h] > 0 and (best is None or (-state.hp[h], h) < best):
                best = (-state.hp[h], h)
        goal = state.region[best[1]]
        if goal == r:
            return (HOLD, r)
        return _toward(model, specs, state, g, goal)
    raise ValueError(f"unknown script '{script}' (known: {', '.join(SCRIPTS)})")


def playout(model: Model, specs, state: State, scripts: list, horizon: int, team: int) -> float:
    """Every group follows ``scripts[g]`` for ``horizon`` rounds (all choose, then simulate); ``evaluate`` for
    ``team``. Stops early once fewer than two teams are left. Works on a copy.

    >>> from ai.tactics import GroupSpec, new_state
    >>> model = Model(((1,), (0,)))
    >>> specs = [GroupSpec("b", 0, 100.0, 10.0), GroupSpec("r", 1, 100.0, 10.0)]
    >>> s = new_state([0, 1], [100.0, 100.0])
    >>> playout(model, specs, s, ["hold", "attack_nearest"], 2, 0) > 0.5    # the walker fires at half rate
    True
    """
    s = state.copy()
    n = len(specs)
    for _ in range(horizon):
        if len(alive_teams(specs, s)) < 2:
            break
        chosen = [script_action(model, specs, s, g, scripts[g]) for g in range(n)]
        for g in range(n):
            assign(s, g, chosen[g])
        simulate(model, specs, s)
    return evaluate(model, specs, s, team)


class _Budget(Exception):
    """Raised when the next evaluation would exceed the playout budget."""


def portfolio_search(model: Model, specs, state: State, team: int, *, playouts: int = 500, iterations: int = 1,
                     responses: int = 0, horizon: int = 3, portfolio=SCRIPTS, hidden=None, samples: int = 1,
                     rng=None) -> "Decision":
    """Portfolio Greedy Search for ``team`` (module docstring). ``hidden``: {group: hops} of groups whose region
    is a guess, sampled ``samples`` times (once per decision, the same samples for every evaluation) within that
    many hops; ``rng`` draws them (required when ``hidden``).

    Returns a ``Decision``: each of the team's live groups' first action under its chosen script, the chosen
    assignment's value, the playouts spent, the improvement steps taken, and stats ``[group script, scripts tried for
    that group, value]`` for the team's groups, then the opponents' (the scripts the search expects them to follow).
    """
    portfolio = tuple(portfolio)
    if not portfolio:
        raise ValueError("the portfolio is empty")
    for name in portfolio:
        if name not in SCRIPTS:
            raise ValueError(f"unknown script '{name}' (known: {', '.join(SCRIPTS)})")
    mine = [g for g, s in enumerate(specs) if s.team == team and state.hp[g] > 0]
    theirs = [g for g, s in enumerate(specs) if s.team != team and state.hp[g] > 0]
    if not mine or len(alive_teams(specs, state)) < 2:
        return Decision({}, evaluate(model, specs, state, team), 0, 0, algorithm="portfolio")
    if hidden:
        if rng is None:
            raise ValueError("sampling hidden groups needs an rng")
        worlds = [determinize(model, state, hidden, rng) for _ in range(max(1, samples))]
    else:
        worlds = [state]
    spent = 0
    steps = 0
    tried = {g: 0 for g in mine + theirs}

    def value(scripts: list) -> float:
        nonlocal spent
        if spent + len(worlds) > playouts:
            raise _Budget
        spent += len(worlds)
        return sum(playout(model, specs, w, scripts, horizon, team) for w in worlds) / len(worlds)

    default = portfolio[0]
    scripts = [default] * len(specs)
    best_value = None
    try:
        best_value = value(scripts)

        def seed(side: list, maximise: bool) -> None:
            nonlocal best_value
            best_name = scripts[side[0]]
            for name in portfolio:
                if name == best_name:
                    continue
                trial = list(scripts)
                for g in side:
                    trial[g] = name
                v = value(trial)
                if (v > best_value) if maximise else (v < best_value):
                    best_name, best_value = name, v
            for g in side:
                scripts[g] = best_name

        def improve(side: list, maximise: bool) -> None:
            nonlocal best_value, steps
            for _ in range(iterations):
                changed = False
                for g in side:
                    for name in portfolio:
                        if name == scripts[g]:
                            continue
                        trial = list(scripts)
                        trial[g] = name
                        v = value(trial)
                        if g in tried:
                            tried[g] += 1
                        if (v > best_value) if maximise else (v < best_value):
                            scripts[g], best_value, changed = name, v, True
                    steps += 1
                if not changed:
                    break

        # the opponent's seed is chosen against our default, ours against theirs (SparCraft's order: enemy first)
        seed(theirs, maximise=False)
        seed(mine, maximise=True)
        improve(mine, maximise=True)
        for _ in range(responses):
            improve(theirs, maximise=False)
            improve(mine, maximise=True)
    except _Budget:
        pass
    if best_value is None:
        best_value = evaluate(model, specs, state, team)
    actions = {g: script_action(model, specs, state, g, scripts[g]) for g in mine}
    stats = [[f"{specs[g].name} {scripts[g]}", tried.get(g, 0), round(float(best_value), 4)] for g in mine + theirs]
    return Decision(actions, float(best_value), spent, steps, stats, "portfolio")
