"""Typed services behind the routes; they use :mod:`gateway.store` and never import ``redis``."""
