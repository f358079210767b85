"""Benchmark scripts (run each as ``.venv/bin/python bench/NAME.py``); a package only so that
mypy names them bench.engine, bench.gateway, ... instead of clashing with the engine package."""
