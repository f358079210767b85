"""Reading a ``/metrics`` page in tests, with prometheus_client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def sample(text: str, name: str, **labels: str) -> float:
    """The value of the sample ``name`` whose labels include ``labels`` (0 when none is
    listed: a counter no request touched yet)."""
    for family in text_string_to_metric_families(text):
        for each in family.samples:
            if each.name == name and all(each.labels.get(key) == value
                                         for key, value in labels.items()):
                return float(each.value)
    return 0.0
