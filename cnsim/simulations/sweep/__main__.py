"""``python -m cnsim.simulations.sweep SWEEP --out DIR …`` and ``spark-submit
…/cnsim/simulations/sweep/__main__.py SWEEP --out DIR …``: the ``cnsim sweep`` command
(user errors become one line on stderr and exit status 2)."""

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run as a script (spark-submit), this folder heads sys.path: drop it, so the
    # modules here (spec, seeds, …) cannot shadow top-level modules of the same name.
    if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    from cnsim.cli import main

    sys.argv[:1] = ["cnsim", "sweep"]
    main()
