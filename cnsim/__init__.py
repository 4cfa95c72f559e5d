"""cnsim: a simulator of distributed content-driven notification networks.

Range top-k subscriptions kept current by the Paint algorithms over a
Meghdoot-style broker overlay (docs/ARCHITECTURE.md; the papers: docs/PAPERS.md).

The public API (:mod:`cnsim.api`)::

    import cnsim
    sc = cnsim.Scenario.from_toml("examples/small.toml", subscriptions={"k": 5})
    result = cnsim.run(sc)            # result.events, result.brokers, result.summary
    report = cnsim.verify(sc)         # report.ok, report.text()
    rows = cnsim.sweep("examples/sweeps/table3.toml", "out/t3", quick=True)
    cnsim.report("out/t3", "out/t3-report")
    cmp = cnsim.reproduce("seed003", "out/s3", quick=True)  # the paper beside ours
    cnsim.CATALOG["ip_bytes"]         # what a metric means

It is imported on first use, so ``import cnsim`` stays cheap for the CLI.
"""

from cnsim.kernel_cache import install as _install_kernel_cache

__version__ = "0.1.0"
_install_kernel_cache()  # numba's cache of cnsim's kernels follows their imports

_API = (
    "CATALOG", "Catalog", "Metric", "Report", "Result", "Scenario", "report", "reproduce",
    "run", "sweep", "verify",
)  # fmt: skip
__all__ = [*_API, "__version__"]


def __getattr__(name: str):
    if name in _API:
        from cnsim import api

        return getattr(api, name)
    raise AttributeError(f"module 'cnsim' has no attribute {name!r}")
