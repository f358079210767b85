"""The playout harness (engine.simulation) over a tiny game defined here.

"Pebbles" is a test fixture, not a stand-in for a real game: it is a complete
game on the engine contract, small enough that every playout can be checked by
hand. Seats take 1 to 3 pebbles from a seeded pile in turn; whoever takes the
last pebble wins. Each seat also holds a secret number, so the test can prove
that bots see the seat's view and never the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from engine.bots import RANDOM, Bot, NoLegalAction, decide
from engine.chance import draw_below
from engine.core import (
    Action,
    EngineModel,
    Event,
    GameInfo,
    IllegalAction,
    MalformedAction,
    ModeInfo,
    NotYourTurn,
    Outcome,
    Seat,
    TableConfig,
    View,
    replay,
)
from engine.simulation import PlayoutDidNotEnd, Step, play_table


class Take(Action):
    kind: Literal["take"] = "take"
    count: int

    @property
    def id(self) -> str:
        return f"take:{self.count}"

    @property
    def text(self) -> str:
        return f"take {self.count} pebble(s)"


class PebblesState(EngineModel):
    seats: int
    pile: int
    turn: int = 0
    secrets: tuple[int, ...]
    winner: Seat | None = None


class PebblesView(View):
    pile: int
    my_secret: int | None


class Pebbles:
    info = GameInfo(
        name="pebbles",
        title="Pebbles",
        modes=(ModeInfo(name="plain", title="Plain", min_seats=2, max_seats=4, description=""),),
    )
    config_model = TableConfig
    state_model = PebblesState
    view_model: type[View] = PebblesView
    action_type: Any = Annotated[Take, Field(discriminator="kind")]

    def new_table(self, config: TableConfig, seed: int) -> PebblesState:
        pile = 10 + draw_below(seed, 0, 11)
        secrets = tuple(draw_below(seed, 1 + i, 1000) for i in range(config.seats))
        return PebblesState(seats=config.seats, pile=pile, secrets=secrets)

    def to_act(self, state: PebblesState) -> list[Seat]:
        return [] if state.winner is not None else [state.turn % state.seats]

    def legal_actions(self, state: PebblesState, seat: Seat) -> list[Take]:
        if seat not in self.to_act(state):
            return []
        return [Take(count=n) for n in range(1, min(3, state.pile) + 1)]

    def apply(self, state: PebblesState, seat: Seat, action: Take) -> tuple[PebblesState, list[Event]]:
        if seat not in self.to_act(state):
            raise NotYourTurn("not your turn", rule="1")
        if action not in self.legal_actions(state, seat):
            raise IllegalAction("cannot take that many", rule="2")
        pile = state.pile - action.count
        events = [
            Event(kind="turn_started", text=f"seat {seat} plays"),
            Event(kind="card_played", text="a take", data={"card_kind": f"take-{action.count}"}),
            # A private echo must not be counted twice by the harness.
            Event(kind="card_played", text="you took", audience=(seat,), data={"card_kind": "x"}),
        ]
        winner = seat if pile == 0 else None
        return state.model_copy(update={"pile": pile, "turn": state.turn + 1, "winner": winner}), events

    def view(self, state: PebblesState, seat: Seat | None) -> PebblesView:
        secret = None if seat is None else state.secrets[seat]
        return PebblesView(game="pebbles", seat=seat, pile=state.pile, my_secret=secret)

    def outcome(self, state: PebblesState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome(winners=(state.winner,), reason="last_pebble")

    def default_action(self, state: PebblesState, seat: Seat) -> Take:
        return Take(count=1)

    def parse_action(self, action_id: str) -> Take:
        kind, _, count = action_id.partition(":")
        if kind != "take" or not count.isdigit():
            raise MalformedAction(action_id)
        return Take(count=int(count))

    def summary(self, state: PebblesState, seat: Seat | None) -> str:
        return f"{state.pile} pebbles left"

    def hidden_from(self, state: PebblesState, seat: Seat | None) -> frozenset[str]:
        return frozenset()  # no cards: the secrets are numbers, checked through the views

    def rulebook(self) -> str:
        return "Take 1 to 3 pebbles; the last pebble wins."


class EndlessPebbles(Pebbles):
    """A broken variant whose pile never shrinks: the harness must stop it."""

    def apply(self, state: PebblesState, seat: Seat, action: Take) -> tuple[PebblesState, list[Event]]:
        return state.model_copy(update={"turn": state.turn + 1}), []


class Greedy:
    """Takes as many pebbles as allowed (a deterministic bot for the tests)."""

    name = "most"
    description = "takes the most pebbles it can"

    def choose(
        self, game: Any, view: View, legal: Sequence[Action], seat: Seat, rng_seed: int
    ) -> Action:
        return legal[-1]


class Spy:
    """Records what it was shown, then plays like random."""

    name = "spy"
    description = "records its inputs"

    def __init__(self) -> None:
        self.views: list[View] = []

    def choose(
        self, game: Any, view: View, legal: Sequence[Action], seat: Seat, rng_seed: int
    ) -> Action:
        self.views.append(view)
        return RANDOM.choose(game, view, legal, seat, rng_seed)


GAME = Pebbles()
CONFIG = TableConfig(mode="plain", seats=3)


def test_bots_satisfy_the_protocol() -> None:
    assert isinstance(Greedy(), Bot)
    assert isinstance(RANDOM, Bot)


def test_a_playout_ends_and_reports_outcome_steps_turns_and_cards() -> None:
    start = GAME.new_table(CONFIG, 7)
    playout = play_table(GAME, CONFIG, 7, [Greedy(), Greedy(), Greedy()])
    # Everyone takes 3 until fewer remain: the figures follow from the pile.
    expected_steps = -(-start.pile // 3)
    assert playout.steps == expected_steps
    assert playout.turns == expected_steps
    assert playout.end_reason == "last_pebble"
    assert playout.outcome.winners == ((expected_steps - 1) % 3,)
    assert sum(playout.cards_played.values()) == expected_steps
    assert "x" not in playout.cards_played  # private events are not counted
    assert playout.bots == ("most", "most", "most")
    assert [seat for seat, _ in playout.log] == [i % 3 for i in range(expected_steps)]


def test_the_log_replays_to_the_final_state() -> None:
    playout = play_table(GAME, CONFIG, 11, [RANDOM, RANDOM, RANDOM])
    assert replay(GAME, CONFIG, 11, playout.log) == playout.final_state


def test_playouts_are_deterministic_per_seed_and_vary_across_seeds() -> None:
    first = [play_table(GAME, CONFIG, seed, [RANDOM] * 3).log for seed in range(20)]
    again = [play_table(GAME, CONFIG, seed, [RANDOM] * 3).log for seed in range(20)]
    assert first == again
    assert len(set(first)) > 10


def test_check_sees_every_step_in_order() -> None:
    seen: list[Step] = []
    playout = play_table(GAME, CONFIG, 3, [RANDOM] * 3, check=seen.append)
    assert [step.index for step in seen] == list(range(playout.steps))
    for step, (seat, action_id) in zip(seen, playout.log, strict=True):
        assert step.seat == seat and step.action.id == action_id
        assert isinstance(step.action, Take)
        assert step.state.pile == step.before.pile - step.action.count
    assert seen[-1].state == playout.final_state


def test_a_failing_check_stops_the_playout() -> None:
    def forbid_taking_three(step: Step) -> None:
        assert step.action.id != "take:3", "took three"

    with pytest.raises(AssertionError, match="took three"):
        play_table(GAME, CONFIG, 5, [Greedy()] * 3, check=forbid_taking_three)


def test_bots_see_only_their_seat_view() -> None:
    spy = Spy()
    state = GAME.new_table(CONFIG, 9)
    play_table(GAME, CONFIG, 9, [spy, RANDOM, RANDOM])
    assert spy.views
    assert all(isinstance(view, PebblesView) and view.seat == 0 for view in spy.views)
    assert {view.my_secret for view in spy.views if isinstance(view, PebblesView)} == {state.secrets[0]}


def test_decide_refuses_a_seat_that_cannot_act() -> None:
    state = GAME.new_table(CONFIG, 1)
    with pytest.raises(NoLegalAction):
        decide(RANDOM, GAME, state, 2, 0)


def test_a_bot_choosing_an_illegal_action_is_caught() -> None:
    class Cheater(Greedy):
        def choose(self, game: Any, view: View, legal: Sequence[Action], seat: Seat, rng_seed: int) -> Action:
            return Take(count=9)

    with pytest.raises(ValueError, match="not legal"):
        play_table(GAME, CONFIG, 1, [Cheater()] * 3)


def test_a_game_that_never_ends_is_stopped() -> None:
    with pytest.raises(PlayoutDidNotEnd):
        play_table(EndlessPebbles(), CONFIG, 1, [RANDOM] * 3, max_steps=500)


def test_bot_count_must_match_the_seats() -> None:
    with pytest.raises(ValueError, match="3 seats"):
        play_table(GAME, CONFIG, 1, [RANDOM, RANDOM])


def test_a_real_game_playout_replays_and_checks_every_step() -> None:
    from engine.market_fortune import GAME as MARKET_FORTUNE
    from engine.market_fortune.audit import card_locations
    from engine.market_fortune.state import MarketFortuneConfig

    config = MarketFortuneConfig(mode="fortune", seats=3)
    steps: list[int] = []

    def every_card_once(step: Step) -> None:
        card_locations(step.state)  # raises if a card is lost or duplicated
        steps.append(step.index)

    playout = play_table(MARKET_FORTUNE, config, 21, [RANDOM] * 3, check=every_card_once)
    assert steps == list(range(playout.steps))
    assert playout.turns > 0 and playout.cards_played is not None
    assert replay(MARKET_FORTUNE, config, 21, playout.log) == playout.final_state


def test_a_probe_decides_what_counts_as_a_turn_and_a_card() -> None:
    from engine.simulation import PlayoutProbe, probe_for

    assert probe_for(GAME).is_turn(Event(kind="turn_started", text=""))  # defaults for unknown games
    only_big_takes = PlayoutProbe(
        is_turn=lambda event: False,
        card_played=lambda event: "big" if event.data.get("card_kind") == "take-3" else None,
        opening_turns=5,
    )
    playout = play_table(GAME, CONFIG, 7, [Greedy()] * 3, probe=only_big_takes)
    assert playout.turns == 5
    assert playout.cards_played == {"big": sum(1 for _, action_id in playout.log if action_id == "take:3")}
