"""Redis has one home: this package. Nothing outside it imports ``redis``.

* :mod:`gateway.store.connection` — the client and the key builder (namespace + hash tags);
* :mod:`gateway.store.tables` — table state, events stream, idempotency, turn clocks;
* :mod:`gateway.store.active_tables` — each agent's unfinished tables (the table cap);
* :mod:`gateway.store.auth` — revoked token ids, agent records, signing keys;
* :mod:`gateway.store.admission` — challenges and rate-limit windows.
"""
