import sys

from benchmarks.run import cli

sys.exit(cli())
