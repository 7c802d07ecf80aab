"""Portfolio Greedy Search (ai/portfolio): the scripts, the greedy improvement, the playout budget, determinization."""
import numpy as np
import pytest

from ai import portfolio, tactics
from ai.tactics import ATTACK, HOLD, MOVE, GroupSpec, Model, new_state

ROW = Model(((1,), (0, 2), (1, 3), (2,)), step_seconds=6.0)        # 0 - 1 - 2 - 3


def test_each_script_picks_its_own_move():
    specs = [GroupSpec("b", 0, 100.0, 10.0), GroupSpec("friend", 0, 300.0, 10.0),
             GroupSpec("strong", 1, 300.0, 10.0), GroupSpec("weak", 1, 20.0, 10.0)]
    s = new_state([1, 0, 2, 3], [100.0, 300.0, 300.0, 20.0])
    pick = {name: portfolio.script_action(ROW, specs, s, 0, name) for name in portfolio.SCRIPTS}
    assert pick["attack_nearest"] == (MOVE, 2)           # toward 'strong', one hop away
    assert pick["attack_weakest"] == (MOVE, 2)           # toward 'weak' (3 hp-wise weakest), through 2
    assert pick["retreat"] == (MOVE, 0)                  # away from the enemy next door, toward the friend
    assert pick["hold"] == (HOLD, 1)
    assert pick["regroup"] == (MOVE, 0)                  # to the strongest friendly group
    far = new_state([0, 1, 3, 3], [100.0, 300.0, 300.0, 20.0])
    assert portfolio.script_action(ROW, specs, far, 0, "retreat") == (HOLD, 0)    # nobody near: stays
    together = new_state([2, 1, 2, 3], [100.0, 300.0, 300.0, 20.0])
    assert portfolio.script_action(ROW, specs, together, 0, "attack_nearest") == (ATTACK, 2)
    with pytest.raises(ValueError, match="unknown script 'charge'"):
        portfolio.script_action(ROW, specs, s, 0, "charge")


def doomed():
    """A weak group of ours next to a strong enemy that walks in: attacking it (the default script) is worst."""
    specs = [GroupSpec("weak", 0, 60.0, 10.0), GroupSpec("home", 0, 200.0, 10.0), GroupSpec("strong", 1, 300.0, 12.0)]
    return specs, new_state([1, 0, 2], [60.0, 200.0, 300.0])


def test_greedy_improvement_beats_the_default_script():
    specs, s = doomed()
    d = portfolio.portfolio_search(ROW, specs, s, 0, playouts=200, horizon=3)
    assert d.algorithm == "portfolio" and set(d.actions) == {0, 1}
    chosen = [row[0].split()[1] for row in d.stats]      # ours (weak, home), then the opponent's (strong)
    assert [row[0].split()[0] for row in d.stats] == ["weak", "home", "strong"]
    assert d.value == pytest.approx(portfolio.playout(ROW, specs, s, chosen, 3, 0))
    # against the opponent's expected script, greedy improvement beat our default (attack nearest)
    default = portfolio.playout(ROW, specs, s, ["attack_nearest", "attack_nearest", chosen[2]], 3, 0)
    assert d.value > default + 0.01, (d.value, default, d.stats)
    assert d.actions[0] != (MOVE, 2)                      # the weak group does not walk into the strong one


@pytest.mark.parametrize("budget", [1, 3, 7, 20, 64])
def test_the_budget_is_counted_in_playouts_and_never_exceeded(budget):
    specs, s = doomed()
    d = portfolio.portfolio_search(ROW, specs, s, 0, playouts=budget, iterations=3, responses=2)
    assert 1 <= d.playouts <= budget
    again = portfolio.portfolio_search(ROW, specs, s, 0, playouts=budget, iterations=3, responses=2)
    assert again == d                                    # no randomness, no clock: the same answer
    big = portfolio.portfolio_search(ROW, specs, s, 0, playouts=10_000, iterations=3, responses=2)
    assert big.playouts < 10_000                         # it ends when no script improves, before the budget


def test_hidden_groups_are_sampled_per_playout_and_the_samples_are_seeded():
    specs, s = doomed()
    d1 = portfolio.portfolio_search(ROW, specs, s, 0, playouts=400, hidden={2: 1}, samples=4,
                                    rng=np.random.default_rng(5))
    d2 = portfolio.portfolio_search(ROW, specs, s, 0, playouts=400, hidden={2: 1}, samples=4,
                                    rng=np.random.default_rng(5))
    assert d1 == d2 and d1.playouts % 4 == 0             # every value: the mean of 4 sampled playouts
    with pytest.raises(ValueError, match="needs an rng"):
        portfolio.portfolio_search(ROW, specs, s, 0, hidden={2: 1})
    # the hidden group's true region is not an input: moving it anywhere within the spread changes nothing
    elsewhere = s.copy()
    elsewhere.region[2] = 1
    assert tactics.determinize(ROW, s, {2: 0}, np.random.default_rng(0)).region[2] == 2


def test_the_portfolio_commander_in_a_one_sided_fight_attacks():
    specs = [GroupSpec("big", 0, 500.0, 20.0), GroupSpec("small", 1, 50.0, 5.0)]
    d = portfolio.portfolio_search(ROW, specs, new_state([1, 2], [500.0, 50.0]), 0, playouts=100)
    assert d.actions == {0: (MOVE, 2)} or d.value > 0.95


def test_explain_names_the_portfolio_scripts():
    from ai.records import CommanderDecision
    from game.app.explain import commander_lines
    rec = CommanderDecision(tick=90, team=0, profile="portfolio", algorithm="portfolio", playouts=40, iterations=6,
                            value=0.6, groups=[["0:1", 3, 900.0]], orders=[[1, "move", 4]],
                            stats=[["0:1 retreat", 4, 0.6], ["1:1 attack_nearest", 0, 0.6]], ms=1.0, view="fog")
    lines = commander_lines(rec)
    assert "  script 0:1 retreat: 4 other scripts tried, value 0.600" in lines
    assert not any(line.startswith("  option") for line in lines)
