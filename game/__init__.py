"""The host: fixed-step loop, world assembly, the action ledger, the CLI and (in views/) the Arcade front end."""

GAME_VERSION = "0.1.0"
TICK_HZ = 30
