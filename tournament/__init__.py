"""Tournament mathematics: plans, results, standings, live ratings, the final fit and report.

Pure code: no I/O, no Redis, no web. The gateway calls these functions; see
``tournament/README.md`` for what duplicate play means and how to read the
report's intervals.
"""
