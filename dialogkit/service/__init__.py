"""Serving a bot over HTTP: the FastAPI app, the Rasa REST channel, metrics (docs/serving.md).

Needs the ``serve`` extra (``pip install 'dialogkit[serve]'``). Nothing else in dialogkit imports
this package; the command line loads it only when ``dialogkit serve`` runs.
"""

from dialogkit.service.app import create_app
from dialogkit.service.state import ServiceSettings

__all__ = ["ServiceSettings", "create_app"]
