"""The game-AI library: engine-free decision making for NPCs and teams.

Nothing here imports the game, its systems or components, the content layer, esper or arcade: facts come in
as plain dicts, actions go out through a small host protocol (``ai.bt.Actuator``), and every piece of
per-NPC state is plain data that snapshots store as it is. Each module's docstrings have runnable examples,
which tests/test_doctests.py runs.

An NPC's behavior stack, from the top down:

- ``ai.brain``: ``Brain`` (shared per NPC kind) and ``BrainState`` (one NPC): utility selection -> HFSM mode
  -> behavior tree (-> planner steps); ``Brain.think`` is one decision step, with the switch-and-release rule.
- ``ai.utility``: utility scoring and mode selection with hysteresis: ``Candidate``, ``Preference``,
  ``Emergency``, ``ModeSelector.decide`` -> ``Decision``; ``score_candidate`` scores one.
- ``ai.hfsm``: hierarchical state machines whose leaf states run trees: ``Machine``, ``State``,
  ``Transition``, ``Runtime``.
- ``ai.bt``: behavior trees with per-NPC flat memory: ``Tree``, ``Context``, the composites, decorators and
  leaves, the ``Actuator`` protocol, and the node-type registry (``NODE_TYPES``, ``Key``) brain files use.
- ``ai.executor``: plans as intents: ``Planning`` (what a brain may plan with, ``StepSpec``) and
  ``PlanRunner``, which carries a plan through the host step by step, advancing only on confirmation.
- ``ai.goap``: goal-oriented action planning, regression and forward A*: ``GoapAction``, ``regress``,
  ``forward``.
- ``ai.htn``: hierarchical task network planning: ``Domain``, ``Primitive``, ``Compound``, ``Method``,
  ``plan``.

A team's commander:

- ``ai.tactics``: an abstract forward model over regions, searched by Expected Outcome or UCT
  (``expected_outcome``, ``uct``, ``scripted``).
- ``ai.regions``: a tile map cut into connected regions with a region graph (``kmeans``, ``Regions``).

Shared by both:

- ``ai.status``: the one outcome vocabulary: ``Status`` and ``SUCCESS``, ``FAILURE``, ``RUNNING``, ``IDLE``.
- ``ai.conditions``: ``Condition``, ``fact op value`` over facts and blackboard (gates, condition leaves,
  guards).
- ``ai.curves``: response curves (``Curve``) for utility preferences.
- ``ai.records``: typed decision records (``NpcDecision``, ``CandidateScore``, ``PlanRecord``,
  ``CommanderDecision``), their checked wire form, ``DecisionLog`` and ``RecordIndex``.
- ``ai.pathfinding``: grid navigation: ``astar``, ``segment_clear``, ``smooth``, breadth-first distances.

The whole stack in a few lines: a sentry whose one mode, ``watch``, runs a tree that waits (no host action,
so no actuator is needed):

    >>> from ai.brain import Brain
    >>> from ai.bt import Tree, Wait
    >>> from ai.conditions import Condition
    >>> from ai.hfsm import Machine, State
    >>> from ai.utility import Candidate, ModeSelector
    >>> brain = Brain("sentry", ModeSelector([Candidate("watch", gates=(Condition("awake"),))]),
    ...               Machine([State("watch", tree=Tree(Wait(2.0, name="look_around")))]))
    >>> st = brain.new_state()
    >>> rec = brain.think(st, {"awake": True}, now=0.0, actuator=None)
    >>> rec.choice, rec.reason, rec.state, rec.bt
    ('watch', 'ordinary', ['watch'], ['look_around'])
    >>> rec = brain.think(st, {"awake": False}, now=0.5, actuator=None)      # the gate fails: idle
    >>> rec.choice, rec.detail, st.path
    (None, 'watch: gate failed: awake; no candidate is eligible', [])
"""
