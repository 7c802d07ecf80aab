"""The command line checks before it runs: argument types and ranges, output paths, non-regular inputs; each
refused in one line with exit status 2 before the first tick. And identical runs record identical bytes."""
import os
import stat

import pytest

from benchmarks.fuzz_saves import outcome, run_cli


def refused(argv):
    rc, out, err = run_cli(argv)
    assert outcome(rc, err) == "refused", (argv, rc, err)
    assert not out
    return err.strip()


@pytest.mark.parametrize("argv, says", [
    (["match", "--save-at", "abc", "x.rtssave"], "--save-at TICK FILE: expected a whole number, got 'abc'"),
    (["match", "--save-at", "-3", "x.rtssave"], "expected a whole number from 0"),
    (["match", "--keyframe-every", "nan", "--record", "r.rtsreplay"], "--keyframe-every: expected a finite"),
    (["match", "--keyframe-every", "inf", "--record", "r.rtsreplay"], "--keyframe-every: expected a finite"),
    (["match", "--keyframe-every", "0", "--record", "r.rtsreplay"], "--keyframe-every: expected a finite"),
    (["match", "--seed", str(1 << 64)], "--seed: expected a whole number from 0 to 18446744073709551615"),
    (["match", "--hash-every", str(1 << 64), "--record", "r.rtsreplay"], "--hash-every: expected a whole number"),
    (["match", "--ticks", "1e9"], "--ticks: expected a whole number, got '1e9'"),
    (["match", "--ticks", str(1 << 62)], "--ticks: expected a whole number from 1 to 10000000"),
    (["replay", "x.rtsreplay", "--to", "-1"], "--to: expected a whole number from 0"),
    (["explain", "x.rtsreplay", "--tick", "5", "--entity", str(1 << 64)], "--entity: expected a whole number"),
    (["match", "--no-such-flag"], "unrecognized arguments"),
])
def test_bad_arguments_are_refused_in_one_line(tmp_path, monkeypatch, argv, says):
    monkeypatch.chdir(tmp_path)
    assert says in refused(argv)
    assert not os.listdir(tmp_path)                      # nothing was written


def test_output_paths_are_checked_before_the_first_tick(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [
        (["match", "--record", str(folder)], "is a folder"),
        (["match", "--record", str(tmp_path / "missing" / "r.rtsreplay")], "does not exist"),
        (["match", "--record", str(a_file / "r.rtsreplay")], "is not a folder"),
        (["match", "--save-at", "100000", str(folder)], "is a folder"),
        (["match", "--save-at", "10", str(a_file / "s.rtssave")], "is not a folder"),
        (["match", "--record", "/proc/r.rtsreplay"], "cannot write there"),
    ]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        cases.append((["match", "--record", str(fifo)], "not a regular file"))
    for argv, says in cases:
        assert says in refused(argv + ["--ticks", "5000000"]), argv     # refused at once, not after 5e6 ticks


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_non_regular_inputs_are_refused_not_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for argv in (["match", "--load", str(fifo)], ["replay", str(fifo), "--verify"],
                 ["explain", str(fifo), "--tick", "0", "--commander", "0"], ["report", str(fifo), "-o",
                                                                            str(tmp_path / "r.svg")]):
        assert "is not a regular file" in refused(argv)      # would block forever if it were opened
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert "is not a regular file" in refused(["replay", "/dev/zero", "--verify"])


def test_load_with_ticks_extends_a_match_saved_at_its_limit(tmp_path):
    save = tmp_path / "at100.rtssave"
    rc, _out, err = run_cli(["match", "--scenario", "duel", "--ticks", "100", "--save-at", "100", str(save)])
    assert rc == 0 and save.exists(), err
    rc, out, err = run_cli(["match", "--load", str(save), "--ticks", "200", "--json"])
    assert rc == 0 and '"ticks": 200' in out and "running on to --ticks 200" in err
    rc, straight, _err = run_cli(["match", "--scenario", "duel", "--ticks", "200", "--json"])
    assert straight == out                                  # the same as the uninterrupted match
    assert "before the loaded tick" in refused(["match", "--load", str(save), "--ticks", "50"])


def test_identical_runs_record_identical_bytes(tmp_path):
    paths = [tmp_path / f"r{i}.rtsreplay" for i in range(2)]
    for path in paths:
        rc, _out, err = run_cli(["match", "--scenario", "skirmish", "--ticks", "200", "--record", str(path)])
        assert rc == 0, err
    assert paths[0].read_bytes() == paths[1].read_bytes()
    timed = tmp_path / "timed.rtsreplay"
    assert run_cli(["match", "--scenario", "skirmish", "--ticks", "200", "--record", str(timed), "--timings"])[0] == 0
    from saves.replay import read_replay
    plain = [r["ms"] for r in read_replay(paths[0]).decisions if r["kind"] == "commander"]
    timings = [r["ms"] for r in read_replay(timed).decisions if r["kind"] == "commander"]
    assert plain and set(plain) == {0.0} and any(ms > 0 for ms in timings)
