"""The front ends: the `rts` command (cli.py), the Arcade windows (views/), match reports, tournaments,
explanations of decision records, brain diagrams and hot reload. They drive the host core in ``game/``; the core
never imports anything from here."""
