"""Where work units run: in this process, in local worker processes, or on a Dask cluster.

A backend takes chunk specs and yields their results as they finish, in any order; the records
do not depend on which backend played them (game N is always the same game). At most
`2 x workers` chunks are in flight, so results never pile up in memory faster than the run
directory takes them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from simcell.runner.warm import warm
from simcell.runner.work import ChunkResult, ChunkSpec, run_chunk

DASK_CONNECT_TIMEOUT = "10s"


class BackendError(Exception):
    """A backend that cannot run the work (unreachable scheduler, a worker that died)."""


class InProcess:
    """Play every chunk in this process, one after the other (workers = 1)."""

    name = "in-process"
    workers = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def prepare(self, loops: set[int]) -> None:
        """Compile (or load) the kernel's entry points for these game loops here."""
        warm(loops)

    def run(self, specs: Iterable[ChunkSpec]) -> Iterator[ChunkResult]:
        for spec in specs:
            yield run_chunk(spec)


def _watch_parent(parent: int) -> None:
    """End this worker when the process that started it is gone (killed, or crashed before it
    could end its workers): a worker is reparented then, and would play on for nobody."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def worker_start(parent: int | None = None) -> None:
    """A local worker's initializer: Ctrl-C reaches every process of the terminal's group and the
    coordinator alone handles it; the worker ends itself when its coordinator is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent or os.getppid(),), daemon=True).start()


def end_pool(pool: ProcessPoolExecutor, wait: bool) -> None:
    """Shut a pool down; not waiting (interrupted or failed), its queued work is dropped and its
    workers are ended now."""
    processes = list(getattr(pool, "_processes", {}).values())
    results = getattr(pool, "_result_queue", None)  # shutdown forgets it
    pool.shutdown(wait=wait, cancel_futures=True)
    if not wait:
        for p in processes:
            if p.is_alive():
                p.terminate()
        for p in processes:
            p.join(timeout=5)
        # a worker ended while sending a result leaves the pool's manager thread waiting for the
        # rest of it, and the exit waiting for that thread: this process holds the pipe's other
        # writing end, so no end of file comes until it is closed (CPython 3.11's executor)
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()


class LocalProcesses:
    """A pool of worker processes on this machine (one game at a time per core)."""

    name = "local processes"

    def __init__(self, workers: int):
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self):
        self.pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=worker_start,
            initargs=(os.getpid(),),
        )
        return self

    def __exit__(self, exc_type, *exc):
        assert self.pool is not None
        # interrupted or failed: drop queued chunks and stop the workers now
        end_pool(self.pool, wait=exc_type is None)
        return False

    def prepare(self, loops: set[int]) -> None:
        """Compile the kernel's entry points in this process before any worker starts, so that
        the workers (spawned on the first chunk) load them from the cache: one compile, not
        one per worker."""
        warm(loops)

    def run(self, specs: Iterable[ChunkSpec]) -> Iterator[ChunkResult]:
        from concurrent.futures.process import BrokenProcessPool

        assert self.pool is not None
        todo = iter(specs)
        pending = set()
        try:
            while True:
                while len(pending) < 2 * self.workers:
                    spec = next(todo, None)
                    if spec is None:
                        break
                    pending.add(self.pool.submit(run_chunk, spec))
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        except BrokenProcessPool as exc:
            raise BackendError(f"a worker process died ({exc}); finished chunks are kept, "
                               "continue with --resume") from exc


def _check_reachable(address: str) -> None:
    """Fail fast on a tcp:// scheduler that refuses connections (Dask itself retries until its
    timeout)."""
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme != "tcp" or parts.hostname is None:
        return  # tls://, inproc:// ...: left to Dask
    try:
        port = parts.port or 8786
    except ValueError as exc:
        raise BackendError(f"not a scheduler address: {address!r} ({exc})") from exc
    try:
        socket.create_connection((parts.hostname, port), timeout=5).close()
    except OSError as exc:
        raise BackendError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc


class DaskCluster:
    """Send chunks to an existing Dask cluster (dask.distributed)."""

    name = "dask"

    def __init__(self, address: str):
        self.address = address
        self.client = None
        self.workers = 1

    def __enter__(self):
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - the dask extra is in the test install
            raise BackendError(
                "--dask needs dask.distributed: pip install 'simcell[dask]'"
            ) from exc
        _check_reachable(self.address)
        try:
            self.client = Client(self.address, timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise BackendError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from exc
        threads = self.client.nthreads()
        if not threads:
            self.client.close()
            raise BackendError(f"the Dask scheduler at {self.address} has no workers")
        self.workers = sum(threads.values())
        return self

    def __exit__(self, exc_type, *exc):
        if self.client is not None:
            self.client.close()
        return False

    def prepare(self, loops: set[int]) -> None:
        """Compile the kernel's entry points on one worker per host, then load them on the
        others: the workers of a host share its cache folder, so each host compiles once (a
        cache folder shared between identical hosts, SIMCELL_CACHE_DIR, makes it once in all)."""
        workers = self.client.scheduler_info()["workers"]
        by_host: dict[str, list[str]] = {}
        for address, info in sorted(workers.items()):
            by_host.setdefault(info.get("host", address), []).append(address)
        for wave in ([a[0] for a in by_host.values()], [x for a in by_host.values() for x in a[1:]]):
            futures = [self.client.submit(warm, sorted(loops), workers=[address],
                                          allow_other_workers=False, pure=False)
                       for address in wave]
            try:
                self.client.gather(futures)
            except Exception as exc:
                raise BackendError(f"compiling the kernel failed on the Dask cluster: {exc}") from exc

    def run(self, specs: Iterable[ChunkSpec]) -> Iterator[ChunkResult]:
        from distributed import as_completed

        todo = iter(specs)
        first = [self.client.submit(run_chunk, s, pure=False)
                 for s in (next(todo, None) for _ in range(2 * self.workers)) if s is not None]
        if not first:
            return
        queue = as_completed(first)
        try:
            for fut in queue:
                try:
                    result = fut.result()
                except Exception as exc:
                    raise BackendError(f"a chunk failed on the Dask cluster: {exc}") from exc
                fut.release()
                spec = next(todo, None)
                if spec is not None:
                    queue.add(self.client.submit(run_chunk, spec, pure=False))
                yield result
        finally:
            for fut in list(queue.futures):
                fut.cancel()


class _Borrowed:
    """A run's use of the command's shared pool (`shared_pool`): entering and leaving it neither
    starts nor ends the workers; the pool's own context does, once for every run."""

    def __init__(self, pool: LocalProcesses):
        self.shared = pool
        self.name, self.workers = pool.name, pool.workers

    def __enter__(self):
        return self.shared

    def __exit__(self, *exc):
        return False


_SHARED: LocalProcesses | None = None


@contextlib.contextmanager
def shared_pool(workers: int | None):
    """One pool of local workers for every run a command plays (a designer tool plays dozens of
    runs, `simcell run` its rungs): the workers start once, warm, instead of once a run. Leaving
    it, normally or by an exception (Ctrl-C, SIGTERM, a crash), ends them."""
    global _SHARED
    n = workers or os.cpu_count() or 1
    if n <= 1 or _SHARED is not None:
        yield None
        return
    with LocalProcesses(n) as pool:
        _SHARED = pool
        try:
            yield pool
        finally:
            _SHARED = None


def backend(workers: int, dask: str | None):
    """The backend for `--workers` / `--dask`: the command's shared pool when it has one of
    this size."""
    if dask:
        return DaskCluster(dask)
    if workers <= 1:
        return InProcess()
    if _SHARED is not None and _SHARED.workers == workers:
        return _Borrowed(_SHARED)
    return LocalProcesses(workers)
