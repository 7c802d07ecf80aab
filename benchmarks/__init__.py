"""`rts bench` / `python -m benchmarks`: every figure beside a baseline measured in the same run."""

#: "sim" lives in benchmarks/run.py; every other suite is benchmarks/<name>.py with run() and print_report()
SUITES = ["sim", "saves", "brains", "planning", "commander", "economy", "fog", "render", "scale", "all"]
