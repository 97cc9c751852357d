"""The local dask cluster of `--backend dask`: a scheduler and workers that serve no HTTP.

distributed's Scheduler starts an HTTP server whatever it is told: with
`dashboard_address=None` and `dashboard=False` (what LocalCluster passes) it drops only
the Bokeh pages and still serves its info pages (worker logs, call stacks, the task
graph), Prometheus metrics and a JSON API on 127.0.0.1:8787, in plain HTTP with no
authentication, while the cluster's own connections need the run's TLS certificate. Each
Worker likewise serves metrics on a port of its own. Any local user could read them.
LocalCluster fixes the scheduler's class, so the cluster is specified here in full.

Someone who wants a dashboard starts a scheduler of their own (`dask scheduler`) and
passes `--scheduler`: its dashboard is theirs to configure (docs/scaling.md).

Imported only when a local dask cluster starts (and by its worker processes, which
unpickle `QuietWorker` by name): distributed is an optional dependency.
"""
from __future__ import annotations

from distributed import Nanny, Scheduler, SpecCluster, Worker


class _NoHttp:
    def start_http_server(self, *args, **kwargs) -> None:
        # Nothing in distributed reads the server unless a dashboard or Jupyter was asked
        # for; stopping services checks that it exists.
        return None


class QuietScheduler(_NoHttp, Scheduler):
    pass


class QuietWorker(_NoHttp, Worker):
    pass


class QuietNanny(Nanny):
    """A worker process that runs a QuietWorker."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, worker_class=QuietWorker, **kwargs)


def local_cluster(jobs: int, security, local_directory: str, silence_logs: int) -> SpecCluster:
    """What LocalCluster(n_workers=jobs, threads_per_worker=1, processes=jobs > 1,
    protocol="tls", host="127.0.0.1", scheduler_port=0, dashboard_address=None) starts,
    without its HTTP servers. memory_limit 1 / jobs: LocalCluster's "auto", each worker
    an equal share of the machine's memory."""
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
    worker = {"cls": QuietNanny if jobs > 1 else QuietWorker,
              "options": {**common, "nthreads": 1, "local_directory": local_directory,
                          "memory_limit": 1 / jobs, "dashboard": False,
                          "dashboard_address": None, "silence_logs": silence_logs}}
    scheduler = {"cls": QuietScheduler,
                 "options": {**common, "port": 0, "dashboard": False, "dashboard_address": None}}
    return SpecCluster(scheduler=scheduler, workers={i: worker for i in range(jobs)}, worker=worker,
                       security=security, silence_logs=silence_logs)
