"""esper processors, one concern each (systems/pipeline.py lists them in the order they run every tick).

This package's ``__init__`` imports nothing: importing one of its modules (content's catalog imports the action
executors) must not import every system.
"""
