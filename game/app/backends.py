"""Where many independent jobs (tournament games, replay verifications) run: local worker processes or Ray.

Both backends take the same job tuples and hand back ``(index, result)`` pairs as
jobs finish, so the caller (game/app/tournament.py, league.py, `rts verify`) never
knows which one ran them; a job's result depends only on the job, never on the
worker, so both backends give identical results.

* ``local``: a pool of forked worker processes on this machine (``workers=1``
  runs in this process). If a worker dies, the pool breaks; every job that had
  not finished is submitted again to a fresh pool, at most ``retries`` more times
  each, so the finished games are kept and only the lost ones are replayed.
* ``ray``: one Ray task per job (``--address auto`` joins a running cluster,
  no address starts a local Ray instance with ``workers`` CPUs). Ray reruns a
  task whose worker died (``max_retries``). Ray is an optional extra: without
  it, asking for this backend is a one-line error.

A worker loads the content once per mod list and keeps it for every later job
(``_content``). The work is a module-level function of one job (it travels to
the workers by name): ``tournament.play_game`` plays one match, ``verify_one``
re-simulates one replay.

>>> [r for _i, r in run_jobs(echo, [(1,), (2,)], backend="local", workers=1)]
[(1,), (2,)]
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Iterator

BACKENDS = ("local", "ray")
WINDOW_PER_WORKER = 4           # jobs queued per worker (enough to keep every worker busy)
RAY_START_S = 120.0             # ray.init may take this long before the run gives up on it
RAY_STALL_S = 1800.0            # and a Ray run in which no job finishes for this long stops with an error
RAY_MISSING = "the ray backend needs Ray: pip install -e '.[cluster]'"

_CONTENTS: dict = {}


class BackendError(Exception):
    """A backend that cannot run here (Ray missing, cluster unreachable): one line for the user."""


def _content(mods) -> object:
    """This worker's content for ``mods`` (a tuple of mod dirs), loaded on first use."""
    key = tuple(str(m) for m in mods)
    if key not in _CONTENTS:
        from content.loader import load_content
        _CONTENTS[key] = load_content(list(key))
    return _CONTENTS[key]


def _crash_hook() -> None:
    """Tests kill a worker mid-job: ``RTS_CRASH_ONCE=FILE`` makes the first job that sees no FILE create it and die."""
    path = os.environ.get("RTS_CRASH_ONCE")
    if path:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        os._exit(3)


def execute(fn, job: tuple):
    """Run one job in this process (what every worker of every backend calls): ``fn(job)``."""
    _crash_hook()
    return fn(job)


def echo(job: tuple) -> tuple:
    """A job that returns itself (tests of the backends)."""
    return job


def verify_one(job: tuple) -> dict:
    """(replay path, mods or None, force) -> {file, ok, ticks, first_bad_tick, details, error}."""
    path, mods, force = job
    from saves.container import SaveError
    from saves.replay import check_compatible, read_replay, verify
    from content.loader import ContentError
    out = {"file": path, "ok": False, "ticks": 0, "first_bad_tick": None, "details": [], "error": None,
           "warning": None}
    try:
        replay = read_replay(path)
        out["warning"] = replay.warning
        content = _content(mods if mods is not None else (replay.header.get("mods") or []))
        check_compatible(replay, content, force)
        result = verify(replay, content, force=force)
    except (SaveError, ContentError) as exc:
        out["error"] = str(exc)
        return out
    out.update(ok=result.ok, ticks=result.ticks, first_bad_tick=result.first_bad_tick, details=result.details)
    return out


def _init_worker() -> None:
    from game.app.process import tune_gc
    tune_gc()


def _mp_context():
    """How local workers start. Fork is fastest (a worker inherits the loaded content) but only safe while this
    process runs one thread: a child forked while another thread (Ray's gRPC threads after ``ray.init``, a
    watchdog) holds a lock inherits the lock held, and can hang for good. Otherwise workers are spawned afresh."""
    return get_context("fork" if threading.active_count() == 1 else "spawn")


def _run_local(fn, jobs: list, workers: int, retries: int) -> Iterator[tuple[int, object]]:
    if workers == 1:
        for i, job in enumerate(jobs):
            yield i, execute(fn, job)
        return
    todo = list(range(len(jobs)))
    attempts = [0] * len(jobs)
    window = WINDOW_PER_WORKER * workers         # jobs in flight at once: memory stays bounded however many
    while todo:
        pool = ProcessPoolExecutor(workers, mp_context=_mp_context(), initializer=_init_worker)
        broken = False
        finished_set, lost = set(), []
        try:
            queue = iter(todo)
            futures = {}
            while True:
                while not broken and len(futures) < window:
                    i = next(queue, None)
                    if i is None:
                        break
                    futures[pool.submit(execute, fn, jobs[i])] = i
                if not futures:
                    break
                finished, _pending = wait(futures, return_when=FIRST_COMPLETED)
                for fut in finished:
                    i = futures.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        lost.append(i)
                        continue
                    finished_set.add(i)
                    yield i, result
            todo = [i for i in todo if i not in finished_set]
        finally:
            pool.shutdown(wait=not broken, cancel_futures=True)
        for i in lost:
            attempts[i] += 1
            if attempts[i] > retries:
                raise BackendError(f"job {i} lost its worker {attempts[i]} times; giving up")


def _ray():
    try:
        import ray
    except ImportError:
        raise BackendError(RAY_MISSING) from None
    return ray


def _run_ray(fn, jobs: list, workers: int, retries: int, address: str | None,
             stall_s: float) -> Iterator[tuple[int, object]]:
    # Ray prints its own notices (a worker died, a task is retried) on the driver's stdout; they go to stderr so
    # that `--json` output stays one object
    with contextlib.redirect_stdout(sys.stderr):
        yield from _run_ray_quiet(fn, jobs, workers, retries, address, stall_s)


def _init_ray(ray, workers: int, address: str | None, wait_s: float) -> threading.Event:
    """Start (or join) Ray, giving up with a BackendError after wait_s rather than waiting forever; returns the
    event that lets the starting thread end (set it after ``ray.shutdown()``).

    ray.init has no timeout of its own; where its daemons cannot start (a container short of shared memory, a
    cluster address nobody answers) it can block for good, so it runs on a helper thread that is waited on. That
    thread must then live as long as Ray does: Ray starts its daemons with a parent-death signal, which Linux ties
    to the thread that started them, so they would be killed the moment it ended."""
    failure: list = []
    ready, release = threading.Event(), threading.Event()

    def start():
        try:
            if address:
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        except Exception as exc:  # noqa: BLE001 - reported below as one line
            failure.append(exc)
            ready.set()
            return
        ready.set()
        release.wait()

    threading.Thread(target=start, name="ray-init", daemon=True).start()
    where = f"address {address or 'local'}"
    if not ready.wait(wait_s):
        raise BackendError(f"Ray did not start within {wait_s:.0f} s ({where}); is it able to run on this machine?")
    if failure:
        exc = failure[0]
        raise BackendError(f"cannot start or join Ray ({where}): "
                           f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    return release


def _run_ray_quiet(fn, jobs, workers, retries, address, stall_s):
    ray = _ray()
    release = None
    if not ray.is_initialized():
        release = _init_ray(ray, workers, address, RAY_START_S)
    try:
        task = ray.remote(num_cpus=1, max_retries=retries)(_ray_execute)
        cpus = int(ray.cluster_resources().get("CPU", workers)) if address else workers
        window = WINDOW_PER_WORKER * max(1, cpus)   # tasks in flight at once: the driver's memory stays bounded
        queue = iter(enumerate(jobs))
        refs = {}
        while True:
            while len(refs) < window:
                item = next(queue, None)
                if item is None:
                    break
                refs[task.remote(fn, item[1])] = item[0]
            if not refs:
                break
            ready, _pending = ray.wait(list(refs), num_returns=1, timeout=stall_s)
            if not ready:           # nothing finished for stall_s: workers that never start must not hang the run
                raise BackendError(f"no Ray job finished in {stall_s:.0f} s ({len(refs)} in flight); are the "
                                   f"cluster's workers starting?")
            for ref in ready:
                yield refs.pop(ref), ray.get(ref)
    finally:
        if release is not None:
            if not address:
                ray.shutdown()
            release.set()


def _ray_execute(fn, job):
    if not _CONTENTS:
        _init_worker()
    return execute(fn, job)


def run_jobs(fn, jobs: list, backend: str = "local", workers: int | None = None, address: str | None = None,
             retries: int = 2, stall_s: float | None = None) -> Iterator[tuple[int, object]]:
    """Run every job; yield (index into jobs, result) as each finishes (any order).

    On Ray, a run where no job finishes for stall_s seconds (default RAY_STALL_S) stops with a BackendError instead of waiting forever."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    if backend == "ray":
        _ray()                      # fail before any work when Ray is missing
    if not jobs:
        return iter(())
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    if backend == "ray":
        return _run_ray(fn, jobs, workers, retries, address, stall_s or RAY_STALL_S)
    return _run_local(fn, jobs, workers, retries)
