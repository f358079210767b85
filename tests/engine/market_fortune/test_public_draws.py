"""A card taken from a face-up discard pile is named to every seat (4.2, 11.3).

Every seat saw the top of a pile before it was taken, so the public event of
the draw names it, and the independent audit (``hidden_in_events``) agrees that
this card was public for the step, while the card, now in a hand, is hidden
from the other seats afterwards like any other card in hand.
"""

from __future__ import annotations

import pytest

from engine.core import events_for
from engine.market_fortune.audit import hidden_from, hidden_in_events
from tests.engine.market_fortune.conftest import MF

EIGHT = ("S.energy.1", "S.banking.2", "S.health.3", "S.retail.4", "R.mining.1", "R.farming.2", "R.property.3", "R.telecom.4")


@pytest.mark.parametrize("source", ["build:return_pile", "build:stock_pile"])
def test_a_build_from_a_pile_names_the_card_to_every_seat(mf: MF, source: str) -> None:
    state = mf.build(hands={0: EIGHT}, return_pile=["R.media.4"], stock_pile=["S.media.2"], active=0)
    card = "R.media.4" if source == "build:return_pile" else "S.media.2"
    before = state
    state, events = mf.act(state, source)
    public = [e for e in events if e.kind == "draw" and e.audience is None]
    assert len(public) == 1 and public[0].data["card"] == card and card in public[0].text
    assert [e for e in events if e.kind == "draw" and e.audience is not None] == []
    for seat in (1, 2, 3, None):
        assert card in " ".join(e.text for e in events_for(events, seat))
        # The audit: public during the step, hidden in seat 0's hand afterwards.
        assert card not in hidden_in_events(before, state, seat)
        assert card in hidden_from(state, seat)


def test_a_deck_draw_still_names_the_card_to_the_drawer_only(mf: MF) -> None:
    state = mf.build(hands={0: EIGHT}, deck_tops={"return_deck": ["R.media.4"]}, active=0)
    before = state
    state, events = mf.act(state, "build:return_deck")
    assert "R.media.4" not in " ".join(e.text for e in events_for(events, 1))
    assert "R.media.4" in " ".join(e.text for e in events_for(events, 0))
    assert "R.media.4" in hidden_in_events(before, state, 1)


def test_bailout_names_the_face_up_card_it_takes(mf: MF) -> None:
    ahead = {1: [("S.telecom.1", "R.telecom.1")], 2: [("S.mining.2", "R.mining.2")], 3: [("S.media.5", "R.media.5")]}
    state = mf.build(hands={0: EIGHT[:6]}, investments=ahead, strategies={0: ["X.bailout.1"]},
                     stock_pile=["S.aerospace.5", "S.energy.3"], stage="red")
    state, _ = mf.act(state, "play:X.bailout.1")
    before = state
    state, events = mf.act(state, "take:S.aerospace.5")
    assert "S.aerospace.5" in " ".join(e.text for e in events_for(events, None))
    assert "S.aerospace.5" not in hidden_in_events(before, state, 2)
