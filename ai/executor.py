"""Plans as intents: planning domains for a brain, and the executor that carries a plan through the ledger.

``Planning`` holds what a brain may plan with: GOAP actions and goals, an HTN
domain, and for each planned step how it becomes a host action (``StepSpec``:
kind, target, parameters, where ``$name`` reads a fact when the step is
submitted and a typed GOAP action targets the instance the planner chose).

``PlanRunner`` is bound to one NPC's plan state (a plain dict kept in its
brain state) and is what behavior-tree plan leaves call:

- a plan is made from the symbolic projection of the NPC's *real* facts; the
  planners work on copies and never write anything back;
- each step's preconditions are checked against the real facts again, then it
  is submitted to the host; the plan advances **only** when the host confirms it;
- a step that fails or times out (or is refused) records the real facts at
  that moment and the plan is made again from them (at most ``max_replans``
  times); no later step of the old plan is ever tried;
- stopping (the leaf is halted) cancels the active step's action, which
  releases exactly that instance's reservations, and drops the unstarted rest.

Everything that happened is appended to the plan's log, which decision
records carry, so a replay shows each plan and its ledger outcomes. The rules,
step by step: docs/rules/executor.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ai import goap, htn
from ai.status import FAILURE, IDLE, RUNNING, SUCCESS
from ai.goap import satisfied
from ai.records import PlanRecord

LOG_LIMIT = 24


@dataclass(frozen=True)
class StepSpec:
    """How a planned step becomes a host action: its ``kind``, ``target`` (an entity id, ``"$fact"`` read when
    the step is submitted, or 0) and ``params`` (``"$fact"`` values allowed). A typed GOAP step targets the
    instance the planner chose instead.

    >>> StepSpec("enter_cover", "$cover_spot", {"hurry": True}).target
    '$cover_spot'
    """
    kind: str                     # host action kind
    target: object = 0            # entity id, "$fact", or 0; a typed GOAP step targets its planned instance
    params: dict = field(default_factory=dict)


@dataclass
class Planning:
    """What one brain may plan with: GOAP actions and goals (goal name -> required facts), an HTN domain, a
    ``StepSpec`` per GOAP action / HTN primitive name, the GOAP expansion ``budget``, the HTN ``depth_limit`` and node budget ``htn_budget``
    and how often a failed plan is made again (``max_replans``).

    >>> from ai.goap import GoapAction
    >>> planning = Planning(goap_actions=[GoapAction("reload", {"has_reserve": True}, {"has_ammo": True})],
    ...                     goap_goals={"armed": {"has_ammo": True}})
    >>> planning.budget, planning.max_replans
    (5000, 3)
    """
    goap_actions: list = field(default_factory=list)          # goap.GoapAction
    goap_goals: dict = field(default_factory=dict)            # goal name -> required facts
    goap_steps: dict = field(default_factory=dict)            # action name -> StepSpec
    htn_domain: htn.Domain | None = None
    htn_steps: dict = field(default_factory=dict)             # primitive name -> StepSpec
    budget: int = goap.DEFAULT_BUDGET
    depth_limit: int = htn.DEFAULT_DEPTH
    htn_budget: int = htn.DEFAULT_BUDGET
    max_replans: int = 3

    def keys(self) -> set:
        """Every fact key the domains mention (GOAP preconditions, effects, goals; HTN primitives' preconditions
        and effects, methods' preconditions).

        >>> from ai.goap import GoapAction
        >>> sorted(Planning([GoapAction("reload", {"has_reserve": True}, {"has_ammo": True})],
        ...                 {"safe": {"in_cover": True}}).keys())
        ['has_ammo', 'has_reserve', 'in_cover']
        """
        keys = set()
        for a in self.goap_actions:
            keys |= set(a.preconditions) | set(a.effects)
        for g in self.goap_goals.values():
            keys |= set(g)
        if self.htn_domain is not None:
            for t in self.htn_domain.tasks.values():
                if isinstance(t, htn.Primitive):
                    keys |= set(t.preconditions) | set(t.effects)
                else:
                    for m in t.methods:
                        keys |= set(m.preconditions)
        return keys

    def __post_init__(self):
        self._keys = tuple(sorted(self.keys()))
        self._goap_by_name = {a.name: a for a in self.goap_actions}

    def symbolic(self, facts: dict) -> dict:
        """The planner's start state: the real facts on the domain's keys (absent ones stay absent).

        >>> from ai.goap import GoapAction
        >>> planning = Planning([GoapAction("reload", {"has_reserve": True}, {"has_ammo": True})])
        >>> planning.symbolic({"has_ammo": False, "hp": 40})
        {'has_ammo': False}
        """
        return {k: facts[k] for k in self._keys if k in facts}

    def bind(self, state: dict) -> "PlanRunner":
        """A ``PlanRunner`` working on ``state``, one NPC's plan state (a dict it fills and keeps).

        >>> state = {}
        >>> Planning().bind(state).state is state
        True
        """
        return PlanRunner(self, state)


class PlanRunner:
    """Runs one NPC's plan through the host: plan, check, submit, advance on confirmation, replan on failure.

    A plan leaf calls ``run`` every tick it is ticked and ``stop`` when it is halted. The context (``ai.bt.Context``)
    gives the real facts, the actuator (the host: ``submit``, ``status``, ``cancel``, optionally ``targets``)
    and the game time. Here a stand-in host confirms what the test says:

    >>> from ai.bt import Context
    >>> from ai.goap import GoapAction
    >>> from ai.status import FAILURE, RUNNING, SUCCESS, name
    >>> class Host:
    ...     def __init__(self):
    ...         self.submitted, self.answers, self.cancelled = [], {}, []
    ...     def submit(self, kind, target, params):
    ...         self.submitted.append((kind, target))
    ...         return len(self.submitted)                  # the action id
    ...     def status(self, aid):
    ...         return self.answers.get(aid, (RUNNING, ""))
    ...     def cancel(self, aid):
    ...         self.cancelled.append(aid)
    >>> planning = Planning(
    ...     goap_actions=[GoapAction("reload", {"has_reserve": True}, {"has_ammo": True, "in_cover": False}),
    ...                   GoapAction("enter_cover", {}, {"in_cover": True})],
    ...     goap_goals={"safe": {"has_ammo": True, "in_cover": True}},
    ...     goap_steps={"reload": StepSpec("reload"), "enter_cover": StepSpec("enter_cover", "$cover_spot")})
    >>> host = Host()
    >>> facts = {"has_ammo": False, "in_cover": False, "has_reserve": True, "cover_spot": 12}
    >>> runner = planning.bind({})
    >>> ctx = Context([], facts, {}, host, now=1.0)
    >>> status, _ = runner.run(ctx, "goap", "safe", fresh=True)
    >>> name(status), host.submitted                    # planned reload -> enter_cover, submitted the first
    ('running', [('reload', 0)])
    >>> host.answers[1] = (SUCCESS, "")                 # the host confirms the reload
    >>> facts["has_ammo"] = True
    >>> status, _ = runner.run(ctx, "goap", "safe", fresh=False)
    >>> host.submitted[-1]                              # only now the next step, its target read from the facts
    ('enter_cover', 12)
    >>> host.answers[2] = (FAILURE, "cover taken")      # it fails: plan again from the real facts
    >>> status, _ = runner.run(ctx, "goap", "safe", fresh=False)
    >>> runner.summary().steps, runner.summary().replans, host.submitted[-1]
    (['enter_cover'], 1, ('enter_cover', 12))
    >>> runner.stop(ctx, "goap", "safe")                # the leaf is halted: cancel the active step
    >>> host.cancelled
    [3]
    """
    __slots__ = ("planning", "state")

    def __init__(self, planning: Planning, state: dict):
        self.planning = planning
        self.state = state

    # -- records -----------------------------------------------------------------------------------------------
    def _log(self, ctx, text: str) -> None:
        log = self.state.setdefault("log", [])
        log.append([round(ctx.now, 4), text])
        if len(log) > LOG_LIMIT:
            del log[:len(log) - LOG_LIMIT]

    def summary(self) -> PlanRecord | None:
        """The plan as decision records carry it: mode and goal are "" while no plan stands (one could not be
        made, or it was stopped), and the log tells why. None before anything was planned.

        >>> Planning().bind({}).summary() is None          # nothing planned yet
        True
        """
        st = self.state
        if not st:
            return None
        return PlanRecord(st.get("mode", ""), st.get("goal", ""), [s[0] for s in st.get("steps", [])], st.get("index", 0),
                          st.get("aid", 0), st.get("status", RUNNING), st.get("replans", 0),
                          [list(e) for e in st.get("log", [])[-8:]])

    # -- planning ----------------------------------------------------------------------------------------------
    def _make(self, ctx, mode: str, goal: str) -> tuple[bool, str]:
        pl = self.planning
        start = pl.symbolic(ctx.facts)
        if mode == "goap":
            required = pl.goap_goals.get(goal)
            if required is None:
                return False, f"unknown goal '{goal}'"
            targets = getattr(ctx.actuator, "targets", None)
            result = goap.regress(start, required, pl.goap_actions, budget=pl.budget, snapshot=ctx.facts,
                                  targets=targets)
            if not result.ok:
                self._log(ctx, f"goap {goal}: {result.status} after {result.expansions} expansions from {start}")
                return False, f"{result.status} for goal {goal}"
            steps = [[s.name, s.action.name, s.target] for s in result.steps]
            self._log(ctx, f"goap {goal}: plan {[s[0] for s in steps]} cost {result.cost:g} "
                           f"({result.expansions} expansions) from {start}")
        else:
            if pl.htn_domain is None or goal not in pl.htn_domain.tasks:
                return False, f"unknown task '{goal}'"
            result = htn.plan(pl.htn_domain, start, goal, depth_limit=pl.depth_limit, budget=pl.htn_budget)
            if not result.ok:
                self._log(ctx, f"htn {goal}: {result.status} from {start}")
                return False, f"{result.status} for task {goal}"
            steps = [[name, name, 0] for name in result.plan]
            self._log(ctx, f"htn {goal}: plan {result.plan} from {start}")
        st = self.state
        st.update(mode=mode, goal=goal, steps=steps, index=0, aid=0, status=RUNNING)
        return True, ""

    def _preconditions(self, step) -> dict:
        pl = self.planning
        if self.state["mode"] == "goap":
            return pl._goap_by_name[step[1]].preconditions
        return pl.htn_domain.tasks[step[1]].preconditions

    def _spec(self, step) -> StepSpec:
        pl = self.planning
        return pl.goap_steps[step[1]] if self.state["mode"] == "goap" else pl.htn_steps[step[1]]

    def _submit(self, ctx, step) -> tuple[int, str]:
        spec = self._spec(step)
        try:
            target = step[2] if step[2] else ctx.resolve(spec.target)
            params = {k: ctx.resolve(v) for k, v in spec.params.items()}
        except KeyError as exc:
            return 0, f"'{exc.args[0]}' is unknown now"
        if not isinstance(target, int) or isinstance(target, bool):
            return 0, f"target {target!r} is not an entity"
        aid = ctx.actuator.submit(spec.kind, target, params)
        return (aid, "") if aid else (0, "could not be submitted")

    # -- the leaf's calls ------------------------------------------------------------------------------------------
    def run(self, ctx, mode: str, goal: str, fresh: bool) -> tuple[int, str]:
        """One tick of the plan ``goal`` in ``mode`` ('goap': a goal name, 'htn': a task name); ``fresh`` asks
        for a new plan. Returns ``(status, reason)``: RUNNING while a step runs, SUCCESS when every step was
        confirmed, FAILURE with the reason when no plan can be made or ``max_replans`` is used up. See the class
        example for a whole plan.

        >>> from ai.bt import Context
        >>> from ai.status import name
        >>> status, reason = Planning().bind({}).run(Context([], {}, {}), "goap", "safe", fresh=True)
        >>> name(status), reason
        ('failure', "unknown goal 'safe'")
        """
        st = self.state
        if fresh or st.get("mode") != mode or st.get("goal") != goal or st.get("status") != RUNNING:
            log = st.get("log", [])
            st.clear()
            st.update(replans=0, log=log)
            ok, why = self._make(ctx, mode, goal)
            if not ok:
                st["status"] = FAILURE
                return FAILURE, why
        pl = self.planning
        while True:
            steps, index, aid = st["steps"], st["index"], st["aid"]
            if aid:
                status, reason = ctx.actuator.status(aid)
                if status == RUNNING:
                    return RUNNING, ""
                st["aid"] = 0
                if status == SUCCESS:
                    self._log(ctx, f"step {steps[index][0]}: action #{aid} confirmed")
                    st["index"] = index + 1
                    continue
                failure = f"step {steps[index][0]}: action #{aid} {reason or 'failed'}"
            elif index >= len(steps):
                st["status"] = SUCCESS
                self._log(ctx, f"{mode} {goal}: plan complete")
                return SUCCESS, "plan complete"
            else:
                step = steps[index]
                if not satisfied(pl.symbolic(ctx.facts), self._preconditions(step)):
                    failure = f"step {step[0]}: preconditions no longer hold"
                else:
                    new_aid, why = self._submit(ctx, step)
                    if new_aid:
                        st["aid"] = new_aid
                        self._log(ctx, f"step {step[0]}: submitted {self._spec(step).kind} as action #{new_aid}")
                        return RUNNING, ""
                    failure = f"step {step[0]}: {why}"
            # the step failed: record the real facts, drop the rest of the plan, plan again
            real = pl.symbolic(ctx.facts)
            self._log(ctx, f"{failure}; real facts {real}; the rest of the plan is dropped")
            if st["replans"] >= pl.max_replans:
                st["status"] = FAILURE
                return FAILURE, f"{failure} (gave up after {pl.max_replans} replans)"
            replans = st["replans"] + 1
            st["replans"] = replans
            ok, why = self._make(ctx, mode, goal)
            st["replans"] = replans
            if not ok:
                st["status"] = FAILURE
                return FAILURE, f"{failure}; replanning: {why}"

    def stop(self, ctx, mode: str, goal: str) -> None:
        """Cancel the active step's action (releasing its reservations), drop the rest of the plan, status IDLE;
        the log is kept. See the class example for a stop that cancels.

        >>> from ai.bt import Context
        >>> from ai.status import IDLE
        >>> state = {}
        >>> Planning().bind(state).stop(Context([], {}, {}), "goap", "safe")
        >>> state["status"] == IDLE
        True
        """
        st = self.state
        aid = st.get("aid", 0)
        if aid:
            ctx.actuator.cancel(aid)
            self._log(ctx, f"stopped: cancelled action #{aid}; dropped {len(st['steps']) - st['index'] - 1} "
                           "unstarted steps")
        elif st.get("steps"):
            self._log(ctx, f"stopped: dropped {len(st['steps']) - st['index']} unstarted steps")
        log = st.get("log", [])
        st.clear()
        st["log"] = log
        st["status"] = IDLE
