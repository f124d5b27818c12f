"""``python -m dialogkit.cli``: the same command line as the ``dialogkit`` script."""

from dialogkit.cli import main

main()
