"""``python -m cnsim``: the ``cnsim`` command (:mod:`cnsim.cli`)."""

from cnsim.cli import main

if __name__ == "__main__":
    main()
