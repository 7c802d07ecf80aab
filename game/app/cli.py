"""The `rts` command.

Headless commands (match, validate, bench) never import arcade; only `play`
loads the window code, and only when it runs. Every user error (bad content,
bad arguments, unknown names) is one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _load(mods):
    from content.loader import load_content
    return load_content(mods or [])


def _scenario(content, name: str) -> str:
    if name not in content.scenarios:
        known = ", ".join(sorted(content.scenarios)) or "none"
        raise CliError(f"unknown scenario '{name}' (known: {known})")
    return name


def _find_team(team, names: list[str], any_case: bool = False) -> int | None:
    """A team's index from its index (an int, or a string of digits) or its name (in any case with ``any_case``);
    None when the match has no such team."""
    if isinstance(team, int):
        return team if 0 <= team < len(names) else None
    if team.isdigit() and int(team) < len(names):
        return int(team)
    for i, name in enumerate(names):
        if name == team or (any_case and name.lower() == team.lower()):
            return i
    return None


def _teams_listed(names: list[str]) -> str:
    return ", ".join(f"{i}={n}" for i, n in enumerate(names))


def _team_profiles(content, scenario: str, pairs, flag: str, known: dict, what: str) -> dict[int, str]:
    """``TEAM=PROFILE`` arguments (a team's index or name) -> {team index: profile id}."""
    teams = content.scenarios[scenario].teams
    out = {}
    for pair in pairs or ():
        team_text, sep, name = pair.partition("=")
        if not sep or not name:
            raise CliError(f"{flag} {pair!r}: expected TEAM=PROFILE, e.g. {flag} 1=macro")
        names = [t.name for t in teams]
        team = _find_team(team_text, names)
        if team is None:
            raise CliError(f"{flag} {pair!r}: no team '{team_text}' in scenario '{scenario}' "
                           f"(teams: {_teams_listed(names)})")
        if name not in known:
            raise CliError(f"{flag} {pair!r}: unknown {what} '{name}' (known: {', '.join(sorted(known)) or 'none'})")
        out[team] = name
    return out


def cmd_match(args) -> int:
    from game.victory import TIME_LIMIT
    from game.world import World
    from saves.container import check_regular
    from saves.replay import ReplayRecorder, step_loaded
    from saves.snapshot import load_snapshot, save_snapshot
    # every argument and path is checked before content is loaded or a tick is run
    save_tick, save_file = None, None
    if args.save_at:
        try:
            save_tick = _parse_int(args.save_at[0], 0, MAX_TICKS)
        except ValueError as exc:
            raise CliError(f"--save-at TICK FILE: {exc}") from None
        save_file = args.save_at[1]
        check_output(save_file, "--save-at")
    if args.record:
        check_output(args.record, "--record", part=True)
        if args.save_at and os.path.abspath(args.record) == os.path.abspath(save_file):
            raise CliError("--record and --save-at name the same file")
    if args.load:
        check_regular(args.load)
    content = _load(args.mod)
    if args.load:
        if args.strategy or args.difficulty:
            raise CliError("--strategy and --difficulty cannot change a loaded match (they are in the save)")
        world = load_snapshot(args.load, content, force=args.force)
        step = lambda: step_loaded(world, str(args.load))    # noqa: E731 - a hostile save: one line, not a traceback
    else:
        scenario = _scenario(content, args.scenario)
        strategies = _team_profiles(content, scenario, args.strategy, "--strategy", content.strategies, "strategy")
        levels = _team_profiles(content, scenario, args.difficulty, "--difficulty", content.difficulties,
                                "difficulty level")
        world = World(content, scenario, args.seed, strategies=strategies, difficulties=levels)
        step = world.step
    world.timings = args.timings
    recorder = None
    bar = None
    try:
        if args.ticks is not None:
            # --ticks is the match's tick limit, counted from the match's start; with --load it replaces the
            # saved limit (so it can extend a match saved at its limit), and must not lie before the saved tick
            if args.ticks < world.tick:
                raise CliError(f"--ticks {args.ticks} is before the loaded tick {world.tick}")
            world.max_ticks = args.ticks
        if args.load and world.over and world.end_reason == TIME_LIMIT and world.tick < world.max_ticks:
            # saved as it reached its old tick limit: the new limit lets it run on (nothing else ended it)
            world.over, world.winner, world.winner_side, world.end_reason = False, None, None, ""
            print(f"note: the loaded match ended at its tick limit {world.tick}; running on to --ticks "
                  f"{world.max_ticks}", file=sys.stderr)
        elif args.load and world.over:
            print(f"note: the loaded match is already over ({world.end_reason or 'ended'} at tick {world.tick}); "
                  "nothing to run", file=sys.stderr)
        elif args.load and world.tick >= world.max_ticks:
            print(f"note: the loaded match is at its tick limit {world.max_ticks}; give a larger --ticks to run it "
                  "on", file=sys.stderr)
        if save_tick is not None and save_tick < world.tick:
            raise CliError(f"--save-at {save_tick} is before the starting tick {world.tick}")
        if save_tick is not None and save_tick > world.max_ticks:
            raise CliError(f"--save-at {save_tick} is after the match's last tick {world.max_ticks}")
        if args.record:
            try:
                recorder = ReplayRecorder(args.record, world, keyframe_every=max(1, round(args.keyframe_every * world.hz)),
                                          hash_every=args.hash_every, mods=[str(m) for m in args.mod])
            except OSError as exc:
                raise CliError(f"--record {args.record}: cannot write: {exc.strerror or exc}") from None
        saved = False
        bar = _match_bar(world, args)
        while True:
            if save_tick is not None and world.tick == save_tick and not saved:
                try:
                    save_snapshot(world, save_file)
                except OSError as exc:
                    raise CliError(f"--save-at {save_file}: cannot write: {exc.strerror or exc}") from None
                saved = True
                _note(bar, f"saved tick {world.tick} to {save_file}")
            if world.over or world.tick >= world.max_ticks:
                world.over = True
                break
            step()
            if recorder:
                recorder.after_tick(world)
            if bar is not None:
                bar.tick()
        if bar is not None:
            bar.close()
            bar = None
        if save_tick is not None and not saved:
            raise CliError(f"the match ended at tick {world.tick}, before --save-at {save_tick}")
        if recorder:
            recorder.close(world)
            recorder = None
            print(f"recorded {world.tick} ticks to {args.record}", file=sys.stderr)
        summary = world.summary()
    finally:
        if bar is not None:             # (an error or an interrupt mid-run: its line goes below the bar)
            bar.close()
        if recorder:
            recorder.abort()
        world.close()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        verb = "win" if len(summary["winners"]) > 1 else "wins"
        result = f"{summary['winner']} {verb}" if summary["winner"] else "draw"
        why = f" by {summary['reason']}" if summary["reason"] else ""
        print(f"{summary['scenario']} (seed {summary['seed']}): {result}{why} after {summary['ticks']} ticks "
              f"({summary['ticks'] / 30:.1f} s of game time)")
        print("alive: " + ", ".join(f"{name} {n}" for name, n in summary["alive"].items()))
        if any(summary["buildings"].values()):
            print("buildings: " + ", ".join(f"{name} {n}" for name, n in summary["buildings"].items()))
        print("score: " + ", ".join(f"{name} {s:g}" for name, s in summary["score"].items()))
        print(f"sync hash: {summary['sync_hash']}")
    return 0


class _MatchBar:
    """``rts match``'s progress on stderr: ticks done of the limit, ticks a second and how that compares with real
    time (the game runs at 30 ticks a second), so a user running a big army sees how far and how fast it goes.
    Wall-clock time is only shown here, never fed to the simulation."""

    def __init__(self, world, file=None):
        from tqdm import tqdm
        self.world = world
        self.done = world.tick
        # (nrows given: a terminal that reports no rows, as some pseudo-terminals do, would hide the bar)
        self.bar = tqdm(total=world.max_ticks, initial=world.tick, desc=world.scenario.id, unit="tick",
                        file=file or sys.stderr, leave=True, dynamic_ncols=False, nrows=2, mininterval=0.5)

    def _real_time(self, ticks_per_s: float) -> None:
        self.bar.set_postfix_str(f"{ticks_per_s / self.world.hz:.2f}x real time", refresh=False)

    def tick(self) -> None:
        bar = self.bar
        bar.update(self.world.tick - self.done)
        self.done = self.world.tick
        rate = bar.format_dict.get("rate")
        if rate and bar.n % 30 == 0:
            self._real_time(rate)

    def write(self, text: str) -> None:
        """A line on stderr above the bar."""
        self.bar.write(text, file=sys.stderr)

    def close(self) -> None:
        bar = self.bar
        elapsed = bar.format_dict.get("elapsed") or 0.0
        if elapsed > 0 and bar.n > bar.initial:          # the whole run's rate, in the bar left on the screen
            self._real_time((bar.n - bar.initial) / elapsed)
        bar.close()


def _note(bar, text: str) -> None:
    """A line on stderr, written above the progress bar when one is showing."""
    if bar is not None:
        bar.write(text)
    else:
        print(text, file=sys.stderr)


def _match_bar(world, args):
    """The progress bar of ``rts match``: on a terminal only (not with ``--json`` or ``--no-progress``)."""
    if args.json or args.no_progress or not sys.stderr.isatty():
        return None
    return _MatchBar(world)


def _in_window(run):
    """Run a window; a machine with no display is a one-line error, not pyglet's traceback."""
    try:
        return run()
    except Exception as exc:
        if type(exc).__name__ == "NoSuchDisplayException":
            raise CliError("no display to open a window on (set DISPLAY, or run under xvfb-run)") from None
        raise


def _open_replay(args):
    """Read FILE, warn if it was cut short, load the content it was recorded with (or --mod), check they fit."""
    from saves.replay import check_compatible, read_replay
    replay = read_replay(args.file)
    if replay.warning:
        print(f"warning: {args.file}: {replay.warning}", file=sys.stderr)
    content = _load(args.mod or replay.header.get("mods") or [])
    check_compatible(replay, content, args.force)
    return replay, content


def cmd_replay(args) -> int:
    from saves.replay import seek, state_summary, verify
    replay, content = _open_replay(args)
    if args.view:
        def view():
            from game.app.views.replay_view import run_replay_view   # window code is loaded only here and in `play`
            return run_replay_view(content, replay, force=args.force, frames=args.frames, screenshot=args.screenshot,
                                   mute=args.mute)
        return _in_window(view)
    if args.verify:
        result = verify(replay, content, force=args.force)
        if args.json:
            print(json.dumps({"verified": result.ok, "ticks": result.ticks, "first_divergent_tick": result.first_bad_tick,
                              "details": result.details}, sort_keys=True))
        elif result.ok:
            print(f"verified {result.ticks} ticks")
        else:
            print(f"divergence at tick {result.first_bad_tick}")
            for line in result.details:
                print(line)
        return 0 if result.ok else 1
    from game.app.entities import building_status, economy_state, has_economy
    world = seek(replay, content, args.to, force=args.force)
    try:
        summary = state_summary(world)
        economy = has_economy(world)
        extra = economy_state(world)
    finally:
        world.close()
    loads = extra.pop("loads")
    for u in summary["units"]:
        u["carrying"] = loads[u["entity"]][0] if u["entity"] in loads else None
    summary.update(extra)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(f"tick {summary['ticks']} of {summary['scenario']} (seed {summary['seed']})")
    print("alive: " + ", ".join(f"{name} {n}" for name, n in summary["alive"].items()))
    print(f"sync hash: {summary['sync_hash']}")
    if economy:
        print(f"{'team':>4} {'name':<10} {'stock':>6} {'held':>5} {'gathered':>8} {'pop':>7} {'score':>9} "
              f"{'units':>5}  buildings")
        for t in summary["teams"]:
            pop = f"{'?' if t['population'] is None else t['population']}/{t['population_cap']}"
            building = f" (+{t['under_construction']} under construction)" if t["under_construction"] else ""
            print(f"{t['team']:>4} {t['name']:<10} {_or_q(t['stockpile']):>6} {t['held']:>5} "
                  f"{_or_q(t['gathered']):>8} {pop:>7} {t['score']:>9.1f} {t['units']:>5}  {t['buildings']}{building}")
    load = f" {'load':>5}" if economy else ""
    print(f"{'entity':>6} {'team':>4} {'unit':<10} {'x':>6} {'y':>6} {'hp':>6} {'clip':>4}{load}  action")
    for u in summary["units"]:
        carry = (f" {u['entity'] in loads and '%d/%d' % tuple(loads[u['entity']]) or '-':>5}" if economy else "")
        print(f"{u['entity']:>6} {u['team']:>4} {u['unit']:<10} {u['x']:>6.2f} {u['y']:>6.2f} {u['hp']:>6.1f} "
              f"{u['clip']:>4}{carry}  {u['action'] or '-'}")
    if summary["building_list"]:
        print(f"{'entity':>6} {'team':>4} {'building':<10} {'tiles':<12} {'hp':>9}  status")
        for b in summary["building_list"]:
            tx, ty, w, h = b["tiles"]
            hp = "?" if b["hp"] is None else f"{b['hp']:.0f}/{b['max_hp']:.0f}"
            print(f"{b['entity']:>6} {_or_q(b['team']):>4} {b['kind']:<10} {f'({tx},{ty}) {w}x{h}':<12} {hp:>9}  "
                  f"{building_status(b, queue=False)}")
            for i, entry in enumerate(b["queue"], 1):
                print(f"{'queue:' if i == 1 else '':>46} {i}. {entry['text']}")
    return 0


def _or_q(value) -> str:
    return "?" if value is None else str(value)


def cmd_explain(args) -> int:
    from game.app import explain as ex
    from saves.replay import seek
    replay, content = _open_replay(args)
    index = replay.records
    if args.tick > replay.end_state_tick:
        raise CliError(f"--tick {args.tick} is past the end of the replay (tick {replay.end_state_tick})")
    scenario = content.scenarios.get(replay.header.get("scenario"))
    teams = scenario.teams if scenario is not None else []
    if args.commander is not None:
        args.commander = _team_index(args.commander, teams, "--commander")
        rec = index.at("commander", args.commander, args.tick)
        if rec is None:
            raise CliError(f"team {args.commander} has no commander decision at or before tick {args.tick}")
        if args.json:
            print(json.dumps(rec.to_wire(), sort_keys=True))
        else:
            print("\n".join(ex.commander_lines(rec)))
        return 0
    if args.strategy is not None:
        args.strategy = _team_index(args.strategy, teams, "--strategy")
        rec = index.at("strategy", args.strategy, args.tick)
        if rec is None:
            raise CliError(f"team {args.strategy} has no strategy decision at or before tick {args.tick} (only a "
                           f"planned strategy profile records them)")
        print(json.dumps(rec.to_wire(), sort_keys=True) if args.json else "\n".join(ex.strategy_lines(rec)))
        return 0
    rec = index.at("npc", args.entity, args.tick)
    if rec is None:
        npcs = index.keys("npc")
        first = index.first_tick("npc", args.entity)
        if first is None:
            return _explain_from_ledger(args, replay, content, npcs, index.at("reflex", args.entity, args.tick))
        raise CliError(f"entity {args.entity} made no decision at or before tick {args.tick} (its first is at tick "
                       f"{first})")
    world = seek(replay, content, args.tick, force=args.force)
    try:
        def action_state(aid):
            action = world.ledger.get(aid)
            return None if action is None else [action.state, action.reason]
        out = ex.explain(rec, action_state)
        unit = None
        if esper_alive(world, args.entity):
            unit = unit_state(world, args.entity)
        out["asked_tick"] = args.tick
        out["unit"] = unit
    finally:
        world.close()
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if rec.tick != args.tick:
        print(f"(the last decision at or before tick {args.tick} was made at tick {rec.tick})")
    for line in ex.lines(out):
        print(line)
    if unit is not None:
        print(f"at tick {args.tick}: hp {unit['hp']:.1f}, clip {unit['clip']}, at ({unit['x']:.1f}, {unit['y']:.1f}), "
              f"doing {unit['action'] or 'nothing'}")
    else:
        print(f"at tick {args.tick} the unit is dead")
    return 0


def _explain_from_ledger(args, replay, content, npcs, reflex=None) -> int:
    """An entity with no decision records (a worker, a building, a strategy's unit): what the ledger says it is
    doing at the tick, and its last finished actions. The re-simulation starts a ledger history's length before
    the tick, so the finished actions the ledger still held then are there."""
    from game.app.entities import entity_lines, explain_entity
    from game.ledger import HISTORY_TICKS
    from saves.replay import play_to, world_at_keyframe
    if args.tick < replay.start_tick:
        raise CliError(f"--tick {args.tick} is before the replay starts (tick {replay.start_tick})")
    world = world_at_keyframe(replay, content, max(replay.start_tick, args.tick - HISTORY_TICKS), args.force)
    try:
        start = world.tick
        play_to(world, replay, args.tick)
        out = explain_entity(world, args.entity, start)
    finally:
        world.close()
    if out is None:
        hint = f"NPC entities in this replay: {npcs[0]}..{npcs[-1]}" if npcs else "this replay has no NPC decisions"
        raise CliError(f"entity {args.entity} never made a decision and is no unit or building at tick {args.tick} "
                       f"({hint}; `rts replay FILE --to {args.tick}` lists the units and buildings)")
    out["asked_tick"] = args.tick
    out["reflex"] = None if reflex is None else reflex.to_wire()      # its latest choice on its own (a stance)
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if out["tick"] != args.tick:
        print(f"(the match ended at tick {out['tick']})")
    print("\n".join(entity_lines(out)))
    return 0


def esper_alive(world, eid: int) -> bool:
    import esper
    from components import Health
    world.activate()
    return esper.entity_exists(eid) and esper.has_component(eid, Health)


def unit_state(world, eid: int) -> dict:
    import esper
    from components import Ammo, Health, Position
    world.activate()
    pos = esper.component_for_entity(eid, Position)
    health = esper.component_for_entity(eid, Health)
    ammo = esper.try_component(eid, Ammo)
    action = world.ledger.current(eid)
    return {"x": pos.x, "y": pos.y, "hp": health.hp, "clip": ammo.clip if ammo else None,
            "action": None if action is None else f"{action.kind}#{action.id} {action.state}"}


def cmd_report(args) -> int:
    from game.app.report import collect, render
    replay, content = _open_replay(args)
    out = str(args.output)
    if not out.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"-o {out}: the report is written as .png, .svg or .pdf")
    check_output(out, "-o")
    data = collect(replay, content, force=args.force)
    try:
        render(data, out)
    except OSError as exc:
        raise CliError(f"-o {out}: cannot write: {exc.strerror or exc}") from None
    lost = dict(zip(data["teams"], data["lost"]))
    print(f"wrote {out}: {len(data['series']['tick'])} samples, losses " +
          ", ".join(f"{k} {v}" for k, v in lost.items()) + f", {data['decisions']} commander decisions")
    if data["economy"]:
        gathered = {name: g[-1] if g else 0 for name, g in zip(data["teams"], data["series"]["gathered"])}
        built = dict(zip(data["teams"], data["built"]))
        print("economy: gathered " + ", ".join(f"{k} {v}" for k, v in gathered.items()) +
              "; buildings completed " + ", ".join(f"{k} {v}" for k, v in built.items()))
    return 0


def cmd_graph(args) -> int:
    content = _load(args.mod)
    if args.brain not in content.brain_defs:
        known = ", ".join(sorted(content.brain_defs)) or "none"
        raise CliError(f"unknown brain '{args.brain}' (known: {known})")
    out = str(args.output)
    if not out.lower().endswith((".png", ".svg", ".dot")):
        raise CliError(f"-o {out}: a diagram is written as .png, .svg or .dot")
    check_output(out, "-o")
    from game.app.graph import write
    try:
        kind = write(content, args.brain, out)
    except OSError as exc:
        raise CliError(f"-o {out}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} ({kind}): brain {args.brain}")
    return 0


def cmd_docs(args) -> int:
    from pathlib import Path
    from content.reference import generate
    text = generate()
    out = Path(args.output)
    if args.check:
        try:
            current = out.read_text(encoding="utf-8")
        except OSError:
            raise CliError(f"{out}: missing; run `rts docs` to write it") from None
        if current != text:
            raise CliError(f"{out}: out of date with the content schema; run `rts docs` to regenerate it")
        print(f"{out} is up to date")
        return 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{out}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {out} ({len(text.splitlines())} lines)")
    return 0


def cmd_validate(args) -> int:
    from content.loader import ContentError, load_content
    try:
        content = load_content(args.mod or [])
    except ContentError as exc:
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        print(f"{len(exc.problems)} problem(s); nothing was loaded", file=sys.stderr)
        return EXIT_USAGE
    for warning in content.warnings:          # legal, loaded, but does nothing: said, not refused
        print(f"warning: {warning}")
    print(f"ok: {len(content.brains)} brains, {len(content.units)} units, {len(content.maps)} maps, "
          f"{len(content.scenarios)} scenarios "
          f"from {len(content.files)} files (content hash {content.content_hash})")
    return 0


def cmd_play(args) -> int:
    if not args.no_record:
        check_output(args.record, "--record", part=True)
    content = _load(args.mod)
    scenario = None
    team = args.team if args.team is not None else 0
    if args.scenario is not None or args.team is not None or args.spectate:   # else: the start menu asks
        scenario = _scenario(content, args.scenario or "skirmish")
        teams = len(content.scenarios[scenario].teams)
        if not 0 <= team < teams:
            raise CliError(f"--team must be between 0 and {teams - 1} for scenario '{scenario}'")
    if args.difficulty not in content.difficulties:
        raise CliError(f"--difficulty: unknown level '{args.difficulty}' "
                       f"(known: {', '.join(sorted(content.difficulties)) or 'none'})")
    if args.opponent is not None and args.opponent not in content.strategies:
        raise CliError(f"--opponent: unknown strategy '{args.opponent}' "
                       f"(known: {', '.join(sorted(content.strategies)) or 'none'})")
    def play():
        from game.app.views.play import run_play  # window code is loaded only here and in `replay --view`
        return run_play(content, scenario, args.seed, player_team=None if args.spectate else team,
                        difficulty=args.difficulty, frames=args.frames, screenshot=args.screenshot,
                        record=None if args.no_record else args.record, watch=args.watch,
                        mods=[str(m) for m in args.mod], strategy=args.opponent, mute=args.mute)
    return _in_window(play)


def _profile_role(content, flag: str, names: list) -> str:
    """'commander' or 'strategy': what every name in ``names`` is (all the same kind), else a one-line error."""
    roles = set()
    for name in names:
        if name in content.commanders:
            roles.add("commander")
        elif name in content.strategies:
            roles.add("strategy")
        else:
            known = ", ".join(sorted(content.commanders)) or "none"
            raise CliError(f"{flag}: unknown commander profile '{name}' (known: {known}; strategy profiles: "
                           f"{', '.join(sorted(content.strategies)) or 'none'})")
    if len(roles) > 1:
        raise CliError(f"{flag}: mixes commander and strategy profiles ({', '.join(names)}); use one kind")
    return roles.pop()


def _check_backend(args) -> None:
    """``--backend ray`` needs Ray installed; ``--address`` needs ``--backend ray`` (tournament, league, verify)."""
    from game.app.backends import RAY_MISSING
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise CliError(RAY_MISSING) from None
    if args.address and args.backend != "ray":
        raise CliError("--address needs --backend ray")


def _scale_setup(args, names: list, flag: str):
    """Shared checks of `tournament` and `league`: content, scenario, profiles, backend. -> (content, scenario, role)."""
    _check_backend(args)
    content = _load(args.mod)
    scenario = _scenario(content, args.scenario)
    role = _profile_role(content, flag, names)
    if len(content.scenarios[scenario].teams) != 2:
        raise CliError(f"scenario '{scenario}' has {len(content.scenarios[scenario].teams)} teams; a tournament needs 2")
    return content, scenario, role


def _side_mods(args, role: str, names: dict) -> None:
    """Check --mod-a/--mod-b: each layers (with --mod) into valid content that still has the side's profile."""
    from content.loader import load_content
    from game.app.tournament import TournamentError, check_side_mod
    for flag, mods, name in (("--mod-a", args.mod_a, names["a"]), ("--mod-b", args.mod_b, names["b"])):
        if not mods:
            continue
        try:
            for m in mods:
                check_side_mod(m, flag)
        except TournamentError as exc:
            raise CliError(str(exc)) from None
        layered = load_content(list(args.mod) + list(mods))
        if name not in (layered.commanders if role == "commander" else layered.strategies):
            raise CliError(f"{flag}: the layered content has no {role} profile '{name}'")


def cmd_tournament(args) -> int:
    from game.app.backends import BackendError
    from game.app.tournament import TournamentError, run
    _content, scenario, role = _scale_setup(args, [args.a, args.b], "--a/--b")
    _side_mods(args, role, {"a": args.a, "b": args.b})
    try:
        summary = run(args.a, args.b, args.games, scenario, args.seed, args.workers, [str(m) for m in args.mod],
                      progress=not args.no_progress, backend=args.backend, address=args.address, out=args.out,
                      mods_a=args.mod_a, mods_b=args.mod_b, ticks=args.ticks, role=role).as_dict()
    except (BackendError, TournamentError) as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    lo, hi = summary["win_rate_ci95"]
    slo, shi = summary["score_rate_ci95"]
    sides = summary["sides"]
    a_label = summary["a"] + (f" (+{', '.join(map(str, args.mod_a))})" if args.mod_a else "")
    b_label = summary["b"] + (f" (+{', '.join(map(str, args.mod_b))})" if args.mod_b else "")
    print(f"A = {a_label} vs B = {b_label} on {scenario}, {summary['games']} games (sides alternate, "
          f"backend {args.backend}):")
    print(f"  A: {summary['wins']} wins, {summary['draws']} draws, {summary['losses']} losses")
    print(f"  win rate {summary['win_rate']:.1%} (95% interval {lo:.1%} - {hi:.1%}); "
          f"score rate {summary['score_rate']:.1%} (95% interval {slo:.1%} - {shi:.1%}; a draw counts half)")
    print(f"  sides: team 0 won {sides['team0_wins']}, team 1 won {sides['team1_wins']}, {sides['draws']} drawn; "
          f"A won {sides['a_wins_as_team0']}/{sides['a_games_as_team0']} as team 0 and "
          f"{sides['a_wins_as_team1']}/{sides['a_games_as_team1']} as team 1")
    print(f"  mean length {summary['mean_ticks']:.0f} ticks")
    print(f"  {summary['verdict']}")
    return 0


def cmd_league(args) -> int:
    from game.app import league
    from game.app.backends import BackendError
    from game.app.tournament import TournamentError, check_side_mod
    if len(args.profiles) < 2:
        raise CliError("a league needs at least two entrants")
    if len(set(args.profiles)) != len(args.profiles):
        raise CliError(f"an entrant is named twice: {' '.join(args.profiles)}")
    parsed = [league.parse_entrant(p) for p in args.profiles]
    _content, scenario, role = _scale_setup(args, [name for name, _m in parsed], "PROFILE")
    from content.loader import load_content
    for spec, (name, extra) in zip(args.profiles, parsed):
        if extra:
            try:
                check_side_mod(extra[0], spec)
            except TournamentError as exc:
                raise CliError(str(exc)) from None
            layered = load_content(list(args.mod) + list(extra))
            if name not in (layered.commanders if role == "commander" else layered.strategies):
                raise CliError(f"{spec}: the layered content has no {role} profile '{name}'")
    if args.chart and not str(args.chart).lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--chart {args.chart}: a chart is written as .png, .svg or .pdf")
    try:
        summary = league.run(args.profiles, args.games, scenario, args.seed, args.workers, [str(m) for m in args.mod],
                             args.backend, args.address, args.out, args.ticks, role, progress=not args.no_progress)
    except (BackendError, TournamentError) as exc:
        raise CliError(str(exc)) from None
    if args.save_json:
        try:
            with open(args.save_json, "w", encoding="utf-8") as fh:
                fh.write(league.dumps(summary) + "\n")
        except OSError as exc:
            raise CliError(f"--save-json {args.save_json}: cannot write: {exc.strerror or exc}") from None
    if args.chart:
        try:
            league.write_chart(summary, args.chart)
        except OSError as exc:
            raise CliError(f"--chart {args.chart}: cannot write: {exc.strerror or exc}") from None
    if args.json:
        print(league.dumps(summary))
        return 0
    n = len(args.profiles)
    print(f"league of {n} on {scenario}: {args.games} games per pairing, {n * (n - 1) // 2 * args.games} games "
          f"(backend {args.backend})")
    print("\n".join(league.table_lines(summary)))
    print(summary["method"])
    for path, what in ((args.save_json, "JSON"), (args.chart, "chart")):
        if path:
            print(f"wrote {what} to {path}")
    return 0


def cmd_verify(args) -> int:
    """Verify every replay under a directory in parallel: a summary, and each failure's first divergence."""
    import time
    from pathlib import Path
    from game.app.backends import BackendError, run_jobs, verify_one
    root = Path(args.dir)
    if not root.is_dir():
        raise CliError(f"{root}: not a directory")
    _check_backend(args)
    files = sorted(str(p) for p in root.rglob("*.rtsreplay") if p.is_file())
    if not files:
        raise CliError(f"{root}: no .rtsreplay files under it")
    mods = [str(m) for m in args.mod] or None
    jobs = [(f, mods, args.force) for f in files]
    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=len(jobs), desc="verify", unit="replay", leave=False)
    results = [None] * len(jobs)
    start = time.perf_counter()
    try:
        for i, res in run_jobs(verify_one, jobs, backend=args.backend, workers=args.workers, address=args.address):
            results[i] = res
            if bar:
                bar.update()
    except BackendError as exc:
        raise CliError(str(exc)) from None
    finally:
        if bar:
            bar.close()
    seconds = time.perf_counter() - start
    ok = [r for r in results if r["ok"]]
    bad = [r for r in results if not r["ok"]]
    summary = {"replays": len(results), "verified": len(ok), "failed": len(bad), "seconds": round(seconds, 2),
               "ticks": sum(r["ticks"] for r in results), "results": results}
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"{len(ok)} of {len(results)} replays verified ({summary['ticks']} ticks) in {seconds:.1f} s "
              f"(backend {args.backend})")
        for r in bad:
            if r["error"]:
                print(f"FAILED {r['file']}: {r['error']}")
            else:
                print(f"FAILED {r['file']}: divergence at tick {r['first_bad_tick']}")
                for line in r["details"]:
                    print(f"  {line}")
    return 0 if not bad else 1


def cmd_diff(args) -> int:
    """The first tick two recorded matches' states differ, and the first decision that differed."""
    from game.app import diff as df
    from saves.replay import check_compatible, read_replay
    sides = []
    for path in (args.a, args.b):
        replay = read_replay(path)
        if replay.warning:
            print(f"warning: {path}: {replay.warning}", file=sys.stderr)
        content = _load(replay.header.get("mods") or [])
        check_compatible(replay, content, args.force)
        sides.append((replay, content))
    (ra, ca), (rb, cb) = sides
    out = df.diff(ra, ca, rb, cb, force=args.force)
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if not out["same_setup"]:
        print(f"note: different matches (A: {ra.header.get('scenario')} seed {ra.header.get('seed')}, "
              f"B: {rb.header.get('scenario')} seed {rb.header.get('seed')})")
    state = out["state"]
    if state is None:
        print(f"states: identical through tick {ra.end_state_tick}")
    else:
        print(f"states: first differ after tick {state['tick'] - 1} (world tick {state['tick']})")
        for line in state["details"]:
            print(f"  {line}")
    dec = out["decision"]
    if dec is None:
        print(f"decisions: all {len(ra.decisions)} identical")
        return 0
    who = f"team {dec['key']}'s commander" if dec["kind"] == "commander" else f"entity {dec['key']}"
    print(f"first different decision: {who} at tick {dec['tick']}")
    for line in dec["changes"]:
        print(f"  {line}")
    print("\n".join(df.side_by_side(dec["a"], dec["b"])))
    return 0


def cmd_ladder(args) -> int:
    content = _load(args.mod)
    scenario = _scenario(content, args.scenario)
    if len(content.scenarios[scenario].teams) != 2:
        raise CliError(f"scenario '{scenario}' has {len(content.scenarios[scenario].teams)} teams; the ladder needs 2")
    levels = args.levels.split(",") if args.levels else \
        sorted(content.difficulties, key=lambda d: (content.difficulties[d].rank, d))
    for level in levels:
        if level not in content.difficulties:
            raise CliError(f"--levels: unknown difficulty level '{level}' "
                           f"(known: {', '.join(sorted(content.difficulties)) or 'none'})")
    from game.app.ladder import run
    rows = run(levels, args.games, scenario, args.seed, args.workers, [str(m) for m in args.mod], args.ticks,
               progress=not args.no_progress)
    if args.json:
        print(json.dumps({"scenario": scenario, "levels": rows}, sort_keys=True))
        return 0
    print(f"the human stand-in against each difficulty on {scenario} (sides alternate):")
    print(f"{'level':<10} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6}  {'stand-in win rate (95%)':<26} per side")
    for r in rows:
        lo, hi = r["standin_win_rate_ci95"]
        sides = "  ".join(f"team {t}: {w}/{n}" for t, (w, n) in sorted(r["standin_wins_per_side"].items()))
        print(f"{r['level']:<10} {r['games']:>5} {r['standin_wins']:>5} {r['draws']:>5} {r['standin_losses']:>6}  "
              f"{r['standin_win_rate']:>6.1%} ({lo:.0%} - {hi:.0%}){'':<9} {sides}")
    return 0


def cmd_bench(args) -> int:
    from benchmarks.run import BenchError, main as bench_main
    try:
        return bench_main(args)
    except BenchError as exc:
        raise CliError(str(exc)) from None


#: the most ticks any argument may name (the content schema's maximum max_ticks; saves/schema.py)
MAX_TICKS = 10_000_000
UINT64_MAX = (1 << 64) - 1


def _parse_int(text: str, low: int, high: int) -> int:
    """A whole number within [low, high], or ValueError saying what was expected."""
    text = text.strip()
    if not (text.isdigit() or (text[:1] in "+-" and text[1:].isdigit())) or len(text) > 40:
        raise ValueError(f"expected a whole number, got '{text[:40]}'")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, got {text}")
    return value


def _int_in(low: int, high: int):
    def parse(text: str) -> int:
        try:
            return _parse_int(text, low, high)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _team_arg(text: str):
    """A team as the command line names it: its index (0-63), or its name in the scenario (checked later, when
    the scenario is known: ``_team_index``)."""
    text = text.strip()
    if text[:1].isdigit() or text[:1] in "+-":
        return _int_in(0, 63)(text)
    if not text or len(text) > 40 or not all(c.isalnum() or c in "_- " for c in text):
        raise argparse.ArgumentTypeError(f"expected a team's index or name, got '{text[:40]}'")
    return text


def _team_index(team, teams: list, flag: str) -> int:
    """``_team_arg``'s value -> the team's index among ``teams`` (the scenario's), or a one-line CliError."""
    names = [t.name for t in teams]
    found = _find_team(team, names, any_case=True)
    if found is None:
        raise CliError(f"{flag} {team}: no such team in this match (teams: {_teams_listed(names)})")
    return found


def _int_at_least(low: int, high: int = UINT64_MAX):
    return _int_in(low, high)


def _seconds(text: str) -> float:
    """A finite number of seconds, above 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text[:40]}'") from None
    if not (value == value and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds above 0 and at most 3600, got {text}")
    return value


_nonneg_int = _int_at_least(0)
_pos_int = _int_at_least(1)
_seed = _int_in(0, UINT64_MAX)
_tick = _int_in(0, MAX_TICKS)
_pos_tick = _int_in(1, MAX_TICKS)


def check_output(path, flag: str, *, part: bool = False) -> None:
    """Refuse, before any work, an output path that cannot be written: a folder, a missing or non-folder parent,
    a place without write permission, something that is not a regular file. ``part``: the writer also creates
    ``path + '.part'`` beside it (the replay recorder)."""
    import os
    import stat
    text = str(path)
    if not text or text.endswith(os.sep):
        raise CliError(f"{flag} {text!r}: expected a file name")
    parent = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(parent):
        what = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise CliError(f"{flag} {text}: cannot write there: {parent} {what}")
    for target in (text, text + ".part") if part else (text,):
        try:
            st = os.stat(target)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise CliError(f"{flag} {text}: cannot write there: {exc.strerror or exc}") from None
        if stat.S_ISDIR(st.st_mode):
            raise CliError(f"{flag} {target}: is a folder; give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise CliError(f"{flag} {target}: is not a regular file (a pipe, socket or device); refused")
        if not os.access(target, os.W_OK):
            raise CliError(f"{flag} {target}: cannot write there: permission denied")
    import tempfile
    try:                                         # a real probe: permissions alone do not tell (root, read-only mounts)
        fd, probe = tempfile.mkstemp(prefix=".rts-probe-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise CliError(f"{flag} {text}: cannot write there: {exc.strerror or exc}") from None


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit status 2), like every other user error of `rts`."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rts", description="A deterministic RTS runtime for game-AI work.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_mod(p):
        p.add_argument("--mod", action="append", metavar="DIR", default=[],
                       help="a mod directory layered over the default content (repeatable, applied in order)")

    p = sub.add_parser("match", help="run a headless AI-vs-AI match and print its summary")
    p.add_argument("--scenario", default="skirmish", help="scenario id (default: skirmish)")
    p.add_argument("--seed", type=_seed, default=1, help="world RNG seed, 0 to 2^64-1 (default: 1)")
    p.add_argument("--ticks", type=_pos_tick, default=None,
                   help="the match's tick limit, counted from its start (default: the scenario's max_ticks); with "
                        "--load it replaces the saved limit, so a saved match can be run on past it")
    p.add_argument("--timings", action="store_true",
                   help="keep wall-clock timings in decision records (then two runs of a seed no longer record "
                        "identical bytes)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--record", metavar="FILE", help="record a replay to FILE (written as FILE.part until finished)")
    p.add_argument("--keyframe-every", type=_seconds, default=5.0, metavar="SECONDS",
                   help="seconds of game time between replay keyframes (default: 5)")
    p.add_argument("--hash-every", type=_pos_tick, default=5, metavar="TICKS",
                   help="ticks between sync hashes in the replay (default: 5)")
    p.add_argument("--save-at", nargs=2, metavar=("TICK", "FILE"), help="save a snapshot when the match reaches TICK")
    p.add_argument("--load", metavar="FILE", help="continue a match from a snapshot file")
    p.add_argument("--difficulty", action="append", metavar="TEAM=LEVEL", default=[],
                   help="a team's difficulty level (easy, normal, hard, brutal: content/difficulties/); repeatable")
    p.add_argument("--strategy", action="append", metavar="TEAM=PROFILE", default=[],
                   help="run a team (index or name) with this strategy profile, e.g. --strategy 1=scout_rush "
                        "(repeatable)")
    p.add_argument("--force", action="store_true", help="load a snapshot made with other content or format")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it shows on a terminal only: ticks done, ticks a second, x real time)")
    add_mod(p)
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("replay", help="verify a replay, or seek to a tick and show the state there")
    p.add_argument("file", metavar="FILE")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--verify", action="store_true", help="re-simulate and compare every recorded sync hash")
    mode.add_argument("--to", type=_tick, metavar="TICK", help="seek to TICK and print the state summary")
    mode.add_argument("--view", action="store_true", help="watch it in the window: play, pause, scrub, inspect")
    p.add_argument("--mute", action="store_true", help="no sound (with --view)")
    p.add_argument("--frames", type=_pos_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true")
    p.add_argument("--force", action="store_true", help="play even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("explain", help="why an NPC did what it did at a tick of a replay")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--tick", type=_tick, required=True, metavar="T", help="the tick to explain")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--entity", type=_int_in(1, 1 << 40), metavar="E", help="the NPC's entity id (see `rts replay FILE --to T`)")
    who.add_argument("--commander", type=_team_arg, metavar="TEAM",
                     help="explain a team's commander instead (its index or name: 1 or Red)")
    who.add_argument("--strategy", type=_team_arg, metavar="TEAM",
                     help="explain a team's planned strategy: its posture's candidates and its HTN plan")
    p.add_argument("--json", action="store_true")
    p.add_argument("--force", action="store_true", help="read even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("report", help="draw a recorded match: army strength over time, losses, commander decisions "
                                      "and, with an economy, stockpiles, income, army value and buildings")
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", required=True, metavar="PNG", help="picture to write (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="read even if the content hash or format differs")
    add_mod(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("graph", help="draw a brain: candidates, state machine, trees, HTN method trees, GOAP actions")
    p.add_argument("brain", metavar="BRAIN", help="brain id")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.dot")
    add_mod(p)
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("docs", help="write the content reference (every file kind and key) from the schema")
    p.add_argument("-o", "--output", default="docs/content.md", help="where to write it (default: docs/content.md)")
    p.add_argument("--check", action="store_true", help="only check that the file is current (exit 2 if not)")
    p.set_defaults(func=cmd_docs)

    p = sub.add_parser("validate", help="check all content (default plus mods); name every problem")
    add_mod(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("play", help="open the game window")
    p.add_argument("--scenario", default=None, help="scenario id (default: choose in the start menu)")
    p.add_argument("--difficulty", default="normal", metavar="LEVEL",
                   help="how the AI opponents play: a level of content/difficulties/ (easy, normal, hard, brutal; "
                        "default: normal)")
    p.add_argument("--seed", type=_seed, default=1)
    p.add_argument("--team", type=_int_in(0, 63), default=None, help="the team you command (default: 0)")
    p.add_argument("--spectate", action="store_true", help="watch the AIs play each other")
    p.add_argument("--opponent", default=None, metavar="STRATEGY",
                   help="the strategy profile every other team plays in an economy scenario (macro, worker_rush, "
                        "scout_rush, heavy_rush; default: the scenario's)")
    p.add_argument("--record", default="last.rtsreplay", metavar="FILE",
                   help="record the match there, to replay and explain it afterwards (default: last.rtsreplay)")
    p.add_argument("--no-record", action="store_true", help="do not record the match")
    p.add_argument("--watch", action="store_true",
                   help="reload changed content files while the game runs (with --mod: your mod's files too)")
    p.add_argument("--mute", action="store_true", help="no sound (without an audio device the game is silent anyway)")
    p.add_argument("--frames", type=_pos_int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--screenshot", default=None, help=argparse.SUPPRESS)
    add_mod(p)
    p.set_defaults(func=cmd_play)

    def add_scale(p):
        p.add_argument("--games", type=_int_in(1, 100_000), default=20, help="matches per pairing (default 20); sides alternate")
        p.add_argument("--scenario", default="skirmish", help="two-team scenario (default: skirmish)")
        p.add_argument("--seed", type=_int_in(0, UINT64_MAX - 100_000), default=1,
                       help="seed of the first game (game i uses seed + i)")
        p.add_argument("--ticks", type=_pos_tick, default=None,
                       help="stop each game after this many ticks at most (default: the scenario's max_ticks)")
        add_backend(p)
        p.add_argument("--out", metavar="FILE", default=None,
                       help="append each finished game to this JSON-lines file; rerunning with it resumes")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.add_argument("--no-progress", action="store_true", help="no progress bar")
        add_mod(p)

    def add_backend(p):
        p.add_argument("--workers", type=_int_in(1, 1024), default=None,
                       help="worker processes, or Ray CPUs of a local Ray instance (default: one per core)")
        p.add_argument("--backend", choices=["local", "ray"], default="local",
                       help="local worker processes (default) or Ray (optional extra: pip install -e '.[cluster]')")
        p.add_argument("--address", default=None, metavar="ADDR",
                       help="with --backend ray: the cluster to join ('auto' = the running one); default: start a "
                            "local Ray instance")

    p = sub.add_parser("tournament", help="profile A against B over many headless matches (A/B test content with "
                                          "--mod-a/--mod-b)")
    p.add_argument("--a", required=True, metavar="PROFILE", help="commander (or strategy) profile for side A")
    p.add_argument("--b", required=True, metavar="PROFILE", help="commander (or strategy) profile for side B")
    p.add_argument("--mod-a", action="append", metavar="DIR", default=[],
                   help="content layered on side A only (commanders/ and strategies/ files; repeatable)")
    p.add_argument("--mod-b", action="append", metavar="DIR", default=[],
                   help="content layered on side B only (commanders/ and strategies/ files; repeatable)")
    add_scale(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("league", help="round robin over commander or strategy profiles (PROFILE:DIR = with that "
                                      "content) with Bradley-Terry ratings")
    p.add_argument("profiles", nargs="+", metavar="PROFILE", help="entrants: a profile, or PROFILE:DIR for the "
                                                                 "profile with a content mod layered on")
    p.add_argument("--save-json", metavar="FILE", default=None, help="write the league (table, pairings) as JSON")
    p.add_argument("--chart", metavar="PNG", default=None, help="draw the ratings with their intervals (.png/.svg/.pdf)")
    add_scale(p)
    p.set_defaults(func=cmd_league)

    p = sub.add_parser("verify", help="verify every replay under a directory, in parallel (local or Ray)")
    p.add_argument("dir", metavar="DIR", help="directory searched (recursively) for *.rtsreplay files")
    add_backend(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true", help="play even if the content hash or format differs")
    p.add_argument("--mod", action="append", metavar="DIR", default=[],
                   help="content to verify with (default: the mods each replay was recorded with)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("diff", help="two replays: the first tick their states differ and the first decision that did")
    p.add_argument("a", metavar="A", help="a replay (e.g. before a content change)")
    p.add_argument("b", metavar="B", help="another replay (e.g. the same seed after it)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--force", action="store_true", help="read even if the content hash or format differs")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("ladder", help="a scripted stand-in for a human against the AI at each difficulty level")
    p.add_argument("--games", type=_int_in(1, 100_000), default=50,
                   help="matches per level (default 50); sides alternate")
    p.add_argument("--levels", default=None, metavar="A,B,...", help="difficulty levels (default: all, easiest first)")
    p.add_argument("--scenario", default="skirmish", help="two-team scenario (default: skirmish); in an economy one "
                   "(econ_duel) the stand-in also runs a standard build")
    p.add_argument("--seed", type=_int_in(0, UINT64_MAX - 100_000), default=1,
                   help="seed of the first game (game i uses seed + i)")
    p.add_argument("--ticks", type=_pos_tick, default=None, help="stop each match at this tick (decided by score)")
    p.add_argument("--workers", type=_int_in(1, 1024), default=None, help="worker processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_mod(p)
    p.set_defaults(func=cmd_ladder)

    p = sub.add_parser("bench", help="measure headless ticks per second against a bare-esper baseline")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--units", type=_pos_int, nargs="+", default=[50, 200, 1000], help="unit counts to measure")
    p.add_argument("--ticks", type=_pos_int, default=600, help="ticks per measurement")
    p.add_argument("--warmup", type=_tick, default=0, help="army table: ticks run before measuring (past the set-out)")
    from benchmarks import SUITES
    p.add_argument("--suite", choices=SUITES, default="all",
                   help="sim: ticks/s (scripted armies; from 1000 units also armies with brains and commanders, batched vs per-NPC, mean and p99 tick); saves: replay verify, seek and snapshot figures; brains: behavior tree vs "
                        "py_trees, utility selection, 1000 NPCs with brains; planning: GOAP plan and budget, HTN vs "
                        "GTPyhop; commander: abstract playouts/s and decision time; economy: a 10-minute macro mirror's "
                        "speed against real time and a building's grid update; render: frame time with 500 units and "
                        "a 2,000-unit army watched in real time (needs a display); scale: a tournament on the local and Ray backends, where a game's time goes, "
                        "replay verification throughput (sizes: RTS_BENCH_SCALE_GAMES, _TICKS, _WORKERS)")
    p.set_defaults(func=cmd_bench)
    return parser



def main(argv: list[str] | None = None) -> int:
    from content.loader import ContentError
    from game.app.process import tune_gc
    tune_gc()
    from ai.records import RecordError
    from saves.container import SaveError
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ContentError, SaveError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RecordError as exc:                   # a replay's decision record that does not fit its kind
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:       # e.g. `rts replay ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
