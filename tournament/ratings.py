"""Live ratings: OpenSkill's Plackett-Luce model, updated once per finished table.

Each entrant's skill is a normal belief ``N(mu, sigma²)`` that starts at
OpenSkill's defaults (``mu`` 25, ``sigma`` 25/3) and moves after every table
by the Weng-Lin update for a Plackett-Luce ranking of the seats (every seat is
a one-player team; ties in the placements are ties for the model). The shown
number is the *ordinal* ``mu - 3 sigma``: a rating the entrant is very likely
to be above, so a newcomer starts near 0 and climbs as evidence comes in (as
Battlesnake shows TrueSkill).

A rating is *provisional* while ``sigma`` is above :data:`PROVISIONAL_SIGMA`
(as Lichess marks a rating with a high deviation). With this model ``sigma``
shrinks slowly: at four seats it falls below 7.0 after about ten tables
(``tests/tournament/test_ratings.py`` pins 8 to 16).

These are the leaderboard's numbers and the tournament's running numbers; the
final report uses the maximum-likelihood fit of :mod:`tournament.fit`, which
does not depend on the order of the tables and comes with intervals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from tournament.results import TableResult

__all__ = [
    "PROVISIONAL_SIGMA",
    "LiveRating",
    "live_ratings",
    "new_rating",
    "update_ratings",
]

PROVISIONAL_SIGMA = 7.0
"""A rating whose ``sigma`` is above this is shown as provisional (the prior is 25/3)."""

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class LiveRating:
    """One entrant's live rating after the tables applied so far."""

    entrant: str
    mu: float
    sigma: float
    ordinal: float
    """``mu - 3 sigma``, the number shown."""
    games: int
    provisional: bool
    """``sigma`` > :data:`PROVISIONAL_SIGMA`."""


def _rating(entrant: str, mu: float, sigma: float, games: int) -> LiveRating:
    """A :class:`LiveRating` with its derived fields filled in."""
    return LiveRating(entrant=entrant, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, games=games,
                      provisional=sigma > PROVISIONAL_SIGMA)


def new_rating(entrant: str) -> LiveRating:
    """The rating of an entrant without a table: the model's prior."""
    return _rating(entrant, _MODEL.mu, _MODEL.sigma, 0)


def update_ratings(ratings: Mapping[str, LiveRating], result: TableResult) -> dict[str, LiveRating]:
    """The ratings after one more table: a new dict, ``ratings`` is left as it was.

    Entrants of the table not in ``ratings`` start from :func:`new_rating`.
    This is what a leaderboard that keeps its ratings applies per finished
    table; :func:`live_ratings` is the same fold from nothing.
    """
    updated = dict(ratings)
    _apply(updated, result)
    return updated


def _apply(ratings: dict[str, LiveRating], result: TableResult) -> None:
    """Move the ratings of ``result``'s entrants by one table, in place."""
    before = [ratings.get(entrant) or new_rating(entrant) for entrant in result.seating]
    teams = [[PlackettLuceRating(mu=rating.mu, sigma=rating.sigma)] for rating in before]
    after = _MODEL.rate(teams, ranks=[float(place) for place in result.placements])
    for rating, (team,) in zip(before, after, strict=True):
        ratings[rating.entrant] = _rating(rating.entrant, team.mu, team.sigma, rating.games + 1)


def live_ratings(results: Iterable[TableResult]) -> dict[str, LiveRating]:
    """Every seated entrant's rating after applying ``results`` in the given order.

    The order should be the order the tables finished; the same results in
    the same order always give the same ratings.
    """
    ratings: dict[str, LiveRating] = {}
    for result in results:
        _apply(ratings, result)
    return ratings
