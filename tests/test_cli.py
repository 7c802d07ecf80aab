import json
import subprocess
import sys


def rts(*args):
    return subprocess.run([sys.executable, "-m", "game.app.cli", *args], capture_output=True, text=True)


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
    assert "draw by time limit after 30 ticks" in proc.stdout and "sync hash: " in proc.stdout


def test_match_progress_bar_on_a_terminal_only():
    """On a terminal ``rts match`` shows its progress on stderr (ticks done of the limit, ticks a second, how that
    compares with real time); not with --no-progress or --json, nor when stderr is not a terminal; the summary on
    stdout is the same either way."""
    code = ("import io, sys\n"
            "class Tty(io.StringIO):\n"
            "    def isatty(self): return True\n"
            "from game.app.cli import main\n"
            "tty = sys.stderr = Tty()\n"
            "main(['match', '--scenario', 'duel', '--ticks', '60'] + sys.argv[1:])\n"
            "sys.__stderr__.write(tty.getvalue())\n")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "60/60" in shown.stderr and "tick/s" in shown.stderr and "x real time" in shown.stderr, shown.stderr
    for extra in (["--no-progress"], ["--json"]):
        quiet = subprocess.run([sys.executable, "-c", code, *extra], capture_output=True, text=True)
        assert quiet.returncode == 0 and "tick/s" not in quiet.stderr, quiet.stderr
    plain = rts("match", "--scenario", "duel", "--ticks", "60")        # stderr is a pipe here: no bar
    assert "tick/s" not in plain.stderr and plain.stdout == shown.stdout


def test_a_note_during_the_match_goes_above_the_progress_bar(tmp_path):
    """A line written while the bar shows (``--save-at``'s) gets a line of its own, not the end of the bar's."""
    code = ("import io, sys\n"
            "class Tty(io.StringIO):\n"
            "    def isatty(self): return True\n"
            "from game.app.cli import main\n"
            "tty = sys.stderr = Tty()\n"
            "main(['match', '--scenario', 'duel', '--ticks', '60', '--save-at', '30', sys.argv[1]])\n"
            "sys.__stderr__.write(tty.getvalue())\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s.rtssave")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.replace("\r", "\n").splitlines()
    assert f"saved tick 30 to {tmp_path / 's.rtssave'}" in lines and "60/60" in proc.stderr, proc.stderr


def test_headless_match_never_imports_arcade():
    code = ("import sys; from game.app.cli import main; main(['match', '--ticks', '20']); "
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


def test_report_draws_a_picture_of_a_recorded_match(tmp_path):
    from PIL import Image
    rec = tmp_path / "m.rtsreplay"
    assert rts("match", "--scenario", "skirmish", "--seed", "2", "--ticks", "900", "--record", str(rec)).returncode == 0
    out = tmp_path / "report.png"
    proc = rts("report", str(rec), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "commander decisions" in proc.stdout and "losses" in proc.stdout
    img = Image.open(out).convert("RGB")
    assert img.size == (1000, 800)
    colours = {img.getpixel((x, y)) for x in range(0, 1000, 7) for y in range(0, 800, 7)}
    assert (60, 130, 255) in colours or any(abs(r - 60) < 8 and abs(g - 130) < 8 and abs(b - 255) < 8 for r, g, b in colours)
    bad = rts("report", str(rec), "-o", str(tmp_path / "x.txt"))
    assert bad.returncode == 2 and "written as .png, .svg or .pdf" in bad.stderr


def test_explain_answers_for_an_npc_and_the_commander(tmp_path):
    import json
    rec = tmp_path / "m.rtsreplay"
    assert rts("match", "--scenario", "skirmish", "--seed", "3", "--ticks", "600", "--record", str(rec)).returncode == 0
    seen = json.loads(rts("replay", str(rec), "--to", "500", "--json").stdout)
    npc = seen["units"][0]["entity"]
    proc = rts("explain", str(rec), "--tick", "500", "--entity", str(npc))
    assert proc.returncode == 0, proc.stderr
    assert "candidates:" in proc.stdout and "state:" in proc.stdout and "behavior tree:" in proc.stdout
    data = json.loads(rts("explain", str(rec), "--tick", "500", "--entity", str(npc), "--json").stdout)
    assert data["entity"] == npc and data["tick"] <= 500 and data["candidates"]
    assert {"gates", "prefs", "score", "eligible"} <= set(data["candidates"][0])
    cmd = rts("explain", str(rec), "--tick", "500", "--commander", "1")
    assert cmd.returncode == 0 and "playouts" in cmd.stdout and "order:" in cmd.stdout
    for args, message in ((["--entity", "1"], "never made a decision"),
                          (["--tick", "99999"], "past the end of the replay")):
        full = ["explain", str(rec), "--tick", "500", "--entity", str(npc)]
        if args[0] == "--entity":
            full[full.index("--entity") + 1] = args[1]
        else:
            full[full.index("--tick") + 1] = args[1]
        bad = rts(*full)
        assert bad.returncode == 2 and message in bad.stderr and "Traceback" not in bad.stderr
