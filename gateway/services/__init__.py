"""Typed services behind the routes; they use :mod:`gateway.store` and never import ``redis``.

* :mod:`~gateway.services.records` — the stored table record and the problem helper;
* :mod:`~gateway.services.tables` — create, list, show, join, leave, observe, replay;
* :mod:`~gateway.services.actions` — the one path every state change takes (agents,
  house bots, turn clocks): engine ``apply`` plus one compare-and-set;
* :mod:`~gateway.services.events` — long-poll pages and the SSE stream, per audience;
* :mod:`~gateway.services.clocks` — the turn-clock sweeper;
* :mod:`~gateway.services.house_bots` — the house-bot driver;
* :mod:`~gateway.services.runtime` — the per-worker context and background tasks;
* :mod:`~gateway.services.backoff` — the pacing of background loops through an outage;
* :mod:`~gateway.services.retention` — what is kept, how long; the listing's sweeper.
"""
