"""The summary a language model reads: attached Innovations, dated reveals, the target and
the seat's own count (11.1: everything named here is the seat's to see)."""

from __future__ import annotations

from engine.market_fortune import GAME
from engine.market_fortune.scoring import count
from engine.market_fortune.state import Investment
from tests.engine.market_fortune.conftest import MF

NO_PAIRS = ("S.energy.1", "R.banking.1", "S.health.1", "R.media.1", "S.telecom.2", "R.retail.2")
"""Building cards of six different industries: no Stock + Return pair among them."""


def test_an_attached_innovation_is_named_on_its_investment(mf: MF) -> None:
    mine = Investment(stock="S.health.2", ret="R.media.3", innovation="X.innovation.1")
    theirs = Investment(stock="S.energy.4", ret="R.retail.3", innovation="X.innovation.2", face_up=True)
    state = mf.build(investments={0: [mine], 1: [theirs]})
    own = GAME.summary(state, 0)
    assert "Your investment 1: Health Stock 2M [S.health.2], Media Return 3M [R.media.3] = 5M, face down, with Innovation [X.innovation.1] attached." in own
    assert "face up: S.energy.4+R.retail.3, with Innovation [X.innovation.2] attached" in own
    assert "X.innovation.1" not in GAME.summary(state, 2)  # another seat's face-down one: nothing


def test_a_reveal_is_stamped_with_the_turn_it_happened_in(mf: MF) -> None:
    state = mf.build(hands={0: NO_PAIRS, 1: ["S.telecom.1"]},
                     strategies={0: ["X.federal_audit.1"], 1: ["X.fortune.1"]}, stage="red", turn=7)
    state, _ = mf.act(state, "play:X.federal_audit.1@1", "decline")
    revealed = state.seats[0].revealed
    assert revealed is not None and revealed.turn == 7
    assert "Seat 1 showed you (12.8, turn 7): Telecom Stock 1M [S.telecom.1], Fortune [X.fortune.1]." in GAME.summary(state, 0)


def test_the_target_and_the_seats_own_count(mf: MF) -> None:
    pairs = [("S.energy.5", "R.energy.4"), ("S.banking.3", "R.banking.3")]
    state = mf.build(investments={0: pairs}, strategies={0: ["X.dividends.1"]})
    expected = count(state.seats[0])
    assert expected.yellows == 1  # Dividends counts the 5M Stock: the count is the seat's own full one
    own = GAME.summary(state, 0)
    assert "Target (fortune, 9.2): 4 investments and a count of 25M or more at the count (8.1, 8.2)." in own
    assert (f"Now you have 2 investments of 4; counted now they would make {expected.total}M "
            f"(cards 15M, Compound Interest 0M, greens 0M, yellows 1M).") in own
    spectator = GAME.summary(state, None)
    assert "Target (fortune, 9.2)" in spectator and "counted now" not in spectator
    family = GAME.summary(mf.build(mode="family", investments={0: pairs}), 0)
    assert "Target (family, 8.3): the first seat to form 4 investments wins. Now you have 2 investments of 4." in family
    match = mf.build(mode="championship", investments={0: pairs}, config={"match_target": 60})
    text = GAME.summary(match, 0)
    assert "a match total of 60M wins the match" in text and "your match total is 0M" in text
