import json
import subprocess
import sys


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.cli", *args], capture_output=True, text=True)


def test_match_json_summary():
    proc = rts("match", "--scenario", "duel", "--seed", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ticks"] > 0 and set(out["alive"]) == {"Blue", "Red"}
    assert out["winner"] in ("Blue", "Red", None)
    if out["winner"]:
        assert out["alive"][out["winner"]] > 0 and sum(1 for n in out["alive"].values() if n) == 1


def test_tick_limit_gives_draw():
    out = json.loads(rts("match", "--ticks", "10", "--json").stdout)
    assert out["ticks"] == 10 and out["winner"] is None and out["alive"] == {"Blue": 20, "Red": 20}


def test_text_summary():
    proc = rts("match", "--scenario", "duel", "--ticks", "30")
    assert proc.returncode == 0
    assert "draw after 30 ticks" in proc.stdout and "sync hash: " in proc.stdout


def test_headless_match_never_imports_arcade():
    code = ("import sys; from game.cli import main; main(['match', '--ticks', '20']); "
            "print('LEAK' if {'arcade', 'pyglet'} & set(sys.modules) else 'CLEAN')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip().endswith("CLEAN"), proc.stdout + proc.stderr


def test_bad_arguments_exit_2_without_traceback():
    for args in (["match", "--scenario", "nope"], ["match", "--ticks", "0"], ["match", "--seed", "x"],
                 ["play", "--team", "5"], ["frobnicate"], ["match", "--mod", "/no/such/dir"]):
        proc = rts(*args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip(), args
