"""Where a run starts: in this process (:func:`cnsim.simulations.runner.simulate`) or,
with ``run.partitions`` > 1 or a Spark master URL, spread over Spark tasks
(:func:`cnsim.simulations.partitioned.simulate_partitioned`). Either way the same
checks come before any work and the outputs are written the same way; the results
are the same."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from cnsim.errors import CLI, Names
from cnsim.simulations.config import Scenario
from cnsim.simulations.partitioned import simulate_partitioned, verify_partitioned
from cnsim.simulations.result import Result
from cnsim.simulations.runner import run_result as _run_result
from cnsim.simulations.runner import simulate as _simulate
from cnsim.simulations.verify import Report
from cnsim.simulations.verify import verify as _verify


def spread(scenario: Scenario, master: str | None) -> bool:
    """Whether the run goes to Spark: partitions asked for, or a master given."""
    return scenario["run"]["partitions"] > 1 or master is not None


def simulate(scenario: Scenario, events: int | None = None, master: str | None = None) -> Result:
    """Run a scenario in memory, here or spread over Spark tasks (``master``: the Spark
    master URL; None: spark-submit's, or ``local[*]``)."""
    if spread(scenario, master):
        return simulate_partitioned(scenario, events, master)
    return _simulate(scenario, events)


def run_result(
    scenario: Scenario,
    out_dir: str | Path | None = None,
    events: int | None = None,
    overwrite: bool = False,
    names: Names = CLI,
    master: str | None = None,
) -> Result:
    """Run a scenario, here or spread over Spark tasks, and write its outputs to
    ``out_dir`` if given (:func:`cnsim.simulations.runner.run_result`); a master URL is
    checked before any work."""
    if master is not None:
        from cnsim.simulations.sweep.executors import check_master

        check_master(master, names=names)
    how = partial(simulate, master=master)
    return _run_result(scenario, out_dir, events, overwrite, names, how)


def verify(
    scenario: Scenario, events: int | None = None, master: str | None = None, names: Names = CLI
) -> Report:
    """Check every approach against the oracle after every batch, here or, spread over
    Spark tasks, partition by partition (:func:`verify_partitioned`)."""
    if not spread(scenario, master):
        return _verify(scenario, events)
    if master is not None:
        from cnsim.simulations.sweep.executors import check_master

        check_master(master, names=names)
    return verify_partitioned(scenario, events, master)
