"""The issue-17 figures script (benchmarks/edges.py) on a short match: what the README quotes can be re-measured."""
from benchmarks.edges import chained, hash_seeds, long_run


def test_processes_with_different_hash_seeds_end_on_one_hash():
    out = hash_seeds("duel", 2, 90, hash_seeds=(0, 7))
    assert out["same"] and len(out["hashes"]) == 2 and out["ticks"] == [90], out


def test_a_chain_of_saves_and_loads_ends_where_the_straight_match_does():
    out = chained("duel", 2, 120, 40)
    assert out["loads"] == 2 and out["ticks"] == [120, 120], out
    assert out["same"] and out["uninterrupted"] == out["chained"], out


def test_a_chain_of_saves_and_loads_of_planned_strategies_ends_where_the_straight_match_does():
    out = chained("econ_duel", 2, 900, 300, {0: "ai_balanced", 1: "ai_rush"})
    assert out["loads"] == 2 and out["strategies"] == {"0": "ai_balanced", "1": "ai_rush"}, out
    assert out["same"], out


def test_the_long_run_samples_memory():
    out = long_run("duel", 2, 100, 20, budget_s=600)
    assert out["ticks"] == 100 and out["samples"] == 6 and out["rss_mib_peak"] > 10, out
