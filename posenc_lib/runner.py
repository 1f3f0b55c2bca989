"""The runner: train a list of jobs, in this process, in local processes or on a Dask cluster.

`run_jobs` runs jobs (one model each, a dict of JSON values) through joblib: in this process, in
local worker processes (loky) or on the cluster of a ``dask.distributed.Client``
(``backend="dask"``), each job with one BLAS thread (`one_blas_thread`, threadpoolctl) wherever it
runs, so its numbers do not depend on where. Every finished output is appended to a progress file
as one JSON line, so an interrupted run resumes where it stopped (`read_progress`, `job_key`).
"""

import json
import platform
from pathlib import Path

from ._checks import check_bool, check_callable, check_choice, check_int, check_real, short

BACKENDS = ("loky", "dask")


def job_key(job):
    """Return the text that identifies a job in a progress file (its JSON, keys sorted).

    Parameters
    ----------
    job : dict
        A job: JSON values.

    Returns
    -------
    str

    Examples
    --------
    >>> job_key({"seed": 0, "scheme": "rope"})
    '{"scheme": "rope", "seed": 0}'
    """
    return json.dumps(job, sort_keys=True)


def read_progress(path):
    """Return {job key: finished output} from a progress file; a torn last line is ignored.

    Parameters
    ----------
    path : str or Path or None
        A JSON-lines file that `run_jobs` appends to (None or a missing file: nothing done).

    Returns
    -------
    dict

    Examples
    --------
    >>> read_progress(None)
    {}
    """
    done = {}
    if path is None or not Path(path).exists():
        return done
    for line in Path(path).read_text().splitlines():
        try:
            out = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interrupt
        done[job_key(out["job"])] = out
    return done


def one_blas_thread(runner, job):
    """Run ``runner(job)`` with BLAS limited to one thread (threadpoolctl), in any process.

    Several workers that each start a BLAS thread per core oversubscribe the CPU and run many
    times slower; the limit is set where the job runs, so it holds on a cluster too.

    Parameters
    ----------
    runner : callable
        Runs one job.
    job : dict
        The job.

    Returns
    -------
    object
        What ``runner`` returns.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> def blas_threads(job):
    ...     return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    >>> one_blas_thread(blas_threads, {}) <= {1}
    True
    """
    from threadpoolctl import threadpool_limits

    keep_freed_memory()
    with threadpool_limits(limits=1, user_api="blas"):
        return runner(job)


def keep_freed_memory():
    """Let this process reuse the memory it frees (glibc), instead of handing it back at once.

    Scoring a long window allocates and frees attention arrays of tens of megabytes many times
    a second. glibc's defaults return each to the system and fault it in again on the next
    allocation; keeping it (no trimming, no separate mappings) scores real text about 30%
    faster (`benchmarks/RESULTS.md`), with the same bits: only where the arrays live changes.
    Elsewhere than glibc (macOS, Windows, musl) this does nothing.

    Returns
    -------
    bool
        True if glibc took the settings.

    Examples
    --------
    >>> isinstance(keep_freed_memory(), bool)
    True
    """
    import ctypes
    import ctypes.util

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    m_trim_threshold, m_mmap_max = -1, -4  # <malloc.h>
    return bool(mallopt(m_trim_threshold, 2**31 - 1)) and bool(mallopt(m_mmap_max, 0))


TRACKERS = ("loky", "multiprocessing")  # the resource trackers a local run may start


def _tracker(name):
    """Return the resource tracker ``name`` (one of TRACKERS) of this process."""
    if name == "loky":
        from joblib.externals.loky.backend import resource_tracker
    else:
        from multiprocessing import resource_tracker
    return resource_tracker._resource_tracker


def running_trackers():
    """Return the names of the resource trackers this process has running now.

    Returns
    -------
    set of str
        Among TRACKERS.

    Examples
    --------
    >>> running_trackers() <= set(TRACKERS)
    True
    """
    return {name for name in TRACKERS if getattr(_tracker(name), "_fd", None) is not None}


def release_workers(trackers=(), *, timeout=2.0):
    """End the worker processes joblib keeps for a next run, and stop the trackers named.

    joblib's local workers (loky) outlive a run, and so do the resource trackers a run starts
    (loky's and multiprocessing's), processes that ignore SIGTERM. A Jupyter kernel that shuts
    down (Restart, or the end of a notebook run) ends its child processes one signal at a time,
    waiting after each, so a kernel that had used workers took 2.6 s instead of 0.1 s to shut
    down (ipykernel 7.4, `benchmarks/NOTES.md`). `run_jobs` calls this after a run that finished,
    naming only the trackers that run started: one that was running before may serve other
    processes (a Dask cluster, a learner's shared memory), and stopping it would free their
    resources. Idle workers exit; a tracker is asked to stop (its pipe closed) and waited for at
    most ``timeout`` seconds, then left to end by itself. Trackers are stopped on POSIX only.

    Parameters
    ----------
    trackers : collection of str
        Names among TRACKERS.
    timeout : float
        Seconds to wait for each tracker.

    Returns
    -------
    bool
        True if every tracker named has ended (elsewhere than POSIX none is stopped: False if
        any is named).

    Examples
    --------
    >>> release_workers()
    True
    >>> release_workers("loky")
    Traceback (most recent call last):
    ...
    TypeError: release_workers: trackers must be a collection of names among ('loky', 'multiprocessing'), got 'loky'
    """
    import gc
    import os

    if isinstance(trackers, str) or not all(name in TRACKERS for name in trackers):
        raise TypeError(
            f"release_workers: trackers must be a collection of names among {TRACKERS}, "
            f"got {short(trackers)}"
        )
    timeout = check_real("release_workers", "timeout", timeout, greater_than=0)
    from joblib.externals.loky import reusable_executor

    with reusable_executor._executor_lock:
        executor, reusable_executor._executor = reusable_executor._executor, None
    if executor is not None:  # idle workers exit; joblib deletes its temporary folders here
        executor.terminate(kill_workers=False)
        del executor
        gc.collect()  # its queues' semaphores, unregistered before their tracker stops
    if os.name != "posix":
        return not trackers
    return all([_stop_tracker(_tracker(name), timeout) for name in trackers])


def _stop_tracker(tracker, timeout):
    """Ask a resource tracker to stop (close its pipe) and reap it; True if it ended in time.

    The steps of multiprocessing's ``ResourceTracker._stop`` (which loky's lacks in joblib 1.4),
    without its unbounded wait: a tracker whose pipe another process still holds keeps running
    until that process lets go, and is not waited for.
    """
    import os
    import time

    with tracker._lock:
        if getattr(tracker, "_fd", None) is None:
            return True  # not running
        os.close(tracker._fd)
        tracker._fd = None
        pid, tracker._pid = tracker._pid, None
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return True
        except ChildProcessError:
            return True  # reaped already, or not our child
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def _finished(jobs, runner, workers, backend):
    """Yield the outputs of ``jobs`` as they finish (any order), one BLAS thread per job.

    After a local run that finished, its workers end and the trackers it started stop
    (`release_workers`); after one that failed or was interrupted, joblib has killed the
    workers, and the trackers are left to end with this process (stopping them now would have
    them report the killed workers' semaphores as leaked, a warning in the learner's cell).
    """
    if workers == 1 and backend == "loky":
        for job in jobs:
            yield one_blas_thread(runner, job)
        return
    from joblib import Parallel, delayed, parallel_config

    n_jobs = -1 if backend == "dask" else min(workers, len(jobs))
    before = running_trackers()
    with parallel_config(backend=backend, inner_max_num_threads=1 if backend == "loky" else None):
        yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(one_blas_thread)(runner, job) for job in jobs
        )
    if backend == "loky":
        release_workers(running_trackers() - before)


def run_jobs(
    jobs,
    runner,
    *,
    workers=1,
    backend="loky",
    progress=True,
    progress_file=None,
    keep_models=False,
    on_output=None,
):
    """Run jobs and return their outputs in job order; resumable through ``progress_file``.

    ``runner(job)`` returns a dict holding the job under "job" and the trained model under
    "result"; everything else in it must be JSON. Each finished output is appended to
    ``progress_file`` (without "result") as soon as it arrives, and jobs already in the file are
    not run again. The outputs do not depend on ``workers`` or ``backend``: every model is
    seeded by its job.

    Parameters
    ----------
    jobs : list of dict
        The jobs (JSON values).
    runner : callable
        Runs one job; a module-level function, so that worker processes can import it.
    workers : int
        Local worker processes (loky); 1 runs the jobs in this process. Every job runs with one
        BLAS thread, wherever it runs, so that its numbers do not depend on where. Ignored with ``backend="dask"``, which uses every worker of the cluster.
    backend : {"loky", "dask"}
        Where the jobs run: local processes, or the Dask cluster of the current
        ``dask.distributed.Client`` (create one first).
    progress : bool
        Show a progress bar over the models.
    progress_file : str or Path, optional
        The JSON-lines file of finished outputs (its directory is created). Not with
        ``keep_models``: a trained model is not written to it, so a resumed run could not
        return it.
    keep_models : bool
        Keep each trained model in its output, under "result".
    on_output : callable, optional
        Called with each output as it arrives, before "result" is dropped (to save models).

    Returns
    -------
    list of dict
        One output per job, in the order of ``jobs``.

    Raises
    ------
    ValueError
        If ``progress_file`` is given with ``keep_models``, or ``backend`` is unknown.

    Examples
    --------
    >>> def square(job):
    ...     return {"job": job, "result": None, "value": job["x"] ** 2}
    >>> [out["value"] for out in run_jobs([{"x": 2}, {"x": 3}], square, progress=False)]
    [4, 9]
    """
    func = "run_jobs"
    if not isinstance(jobs, list | tuple) or not all(isinstance(j, dict) for j in jobs):
        raise TypeError(f"{func}: jobs must be a list of jobs (dicts), got {short(jobs)}")
    for job in jobs:
        try:
            job_key(job)
        except (TypeError, ValueError):
            raise TypeError(
                f"{func}: every job must hold JSON values only, got {short(job)}"
            ) from None
    check_callable(func, "runner", runner)
    workers = check_int(func, "workers", workers, minimum=1)
    backend = check_choice(func, "backend", backend, BACKENDS)
    check_bool(func, "progress", progress)
    check_bool(func, "keep_models", keep_models)
    if on_output is not None:
        check_callable(func, "on_output", on_output)
    if progress_file is not None and not isinstance(progress_file, str | Path):
        raise TypeError(f"{func}: progress_file must be a path, got {short(progress_file)}")
    if keep_models and progress_file is not None:
        raise ValueError(
            "run_jobs: progress_file cannot be combined with keep_models=True (trained models are "
            f"not written to it, so a resumed run could not return them), got {str(progress_file)!r}"
        )
    path = None if progress_file is None else Path(progress_file)
    done = read_progress(path)
    todo = [job for job in jobs if job_key(job) not in done]
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        desc="models trained",
        leave=False,
        disable=not progress,
    )
    sink = None
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        sink = path.open("a")
        if sink.tell() and not path.read_bytes().endswith(b"\n"):
            sink.write("\n")  # end the line an interrupt cut short, so the next output is whole
    try:
        for out in _finished(todo, runner, workers, backend) if todo else ():
            if on_output is not None:
                on_output(out)
            if not keep_models:
                out = {k: v for k, v in out.items() if k != "result"}
            done[job_key(out["job"])] = out
            if sink is not None:
                sink.write(json.dumps(out) + "\n")
                sink.flush()
            bar.update(1)
    finally:
        if sink is not None:
            sink.close()
        bar.close()
    return [done[job_key(job)] for job in jobs]
