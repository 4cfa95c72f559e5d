"""Parameter sweeps: one scenario run per combination of axis values × repeat, serially
or as one Spark task per run, results appended to a Parquet dataset (format and
guarantees: ``cnsim/simulations/SWEEPS.md``).

One module per concern:

* :mod:`~cnsim.simulations.sweep.spec`: the sweep file — reading, validation, axes and
  their expansion into runs (:func:`load_sweep`, :func:`expand`);
* :mod:`~cnsim.simulations.sweep.seeds`: derived seeds and run ids;
* :mod:`~cnsim.simulations.sweep.dataset`: the Parquet dataset — manifest, atomic row
  files, reading results, which runs are finished (:func:`read_results`);
* :mod:`~cnsim.simulations.sweep.executors`: running it, serially or on Spark
  (:func:`run_sweep`, :func:`spark_session`, :func:`stop_spark`).

The command line (``cnsim sweep``) lives in :mod:`cnsim.cli`; ``python -m
cnsim.simulations.sweep`` and ``spark-submit .../sweep/__main__.py`` run that command.

Example::

    from cnsim.simulations.sweep import load_sweep, read_results, run_sweep

    sweep = load_sweep("examples/sweeps/table3.toml", quick=True)
    run_sweep(sweep, "out/table3", serial=True)
    df = read_results("out/table3")
"""

from cnsim.simulations.sweep.dataset import (
    EVENTS_DIR,
    MANIFEST,
    claim_dataset,
    read_results,
    run_file,
)
from cnsim.simulations.sweep.executors import (
    SweepReport,
    execute_run,
    run_sweep,
    spark_session,
    stop_spark,
)
from cnsim.simulations.sweep.seeds import derive_seed, describe, run_id_of
from cnsim.simulations.sweep.spec import RunSpec, Sweep, expand, load_sweep

__all__ = [
    "EVENTS_DIR",
    "MANIFEST",
    "RunSpec",
    "Sweep",
    "SweepReport",
    "claim_dataset",
    "derive_seed",
    "describe",
    "execute_run",
    "expand",
    "load_sweep",
    "read_results",
    "run_file",
    "run_id_of",
    "run_sweep",
    "spark_session",
    "stop_spark",
]
