"""``python -m controller`` runs the ``tablectl`` command line."""

from controller.cli import main

raise SystemExit(main())
