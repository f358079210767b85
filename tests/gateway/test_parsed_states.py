"""A worker's parsed-state memory: a hit only for the very same text, bounded, least recent out."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import ValidationError

from engine.core import Game
from engine.registry import get_game
from gateway.services.parsed_states import ParsedStates
from gateway.services.records import TableRecord


def _states(game: Game, count: int) -> list[str]:  # type: ignore[type-arg]
    """``count`` successive states of one seeded random game, as their JSON."""
    config = game.config_model.model_validate({"seats": 3})
    state = game.new_table(config, 11)
    rng = random.Random(5)
    texts = [state.model_dump_json()]
    while len(texts) < count and game.outcome(state) is None:
        seat = game.to_act(state)[0]
        state, _events = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        texts.append(state.model_dump_json())
    return texts


def test_the_same_text_is_parsed_once_and_another_text_again() -> None:
    game = get_game("market-fortune")
    first, second = _states(game, 2)
    states = ParsedStates()
    parsed = states.parse(game, "t1", first)
    assert parsed == game.state_model.model_validate_json(first)
    assert states.parse(game, "t1", first) is parsed  # an equal text: the remembered state
    moved = states.parse(game, "t1", second)  # the table moved on: parsed afresh
    assert moved is not parsed and moved.model_dump_json() == second
    assert states.parse(game, "t2", first) is not parsed  # keyed by table too
    assert len(states) == 2


def test_a_written_state_is_remembered_with_its_text() -> None:
    game = get_game("hab-und-gut")
    text, = _states(game, 1)
    state = game.state_model.model_validate_json(text)
    states = ParsedStates()
    states.remember("t1", text, state)
    assert states.parse(game, "t1", text) is state
    assert states.parse(game, "t1", text + " ") is not state  # any other text is parsed


def test_the_least_recently_used_table_goes_first() -> None:
    game = get_game("market-fortune")
    text, = _states(game, 1)
    states = ParsedStates(capacity=2)
    a = states.parse(game, "a", text)
    states.parse(game, "b", text)
    assert states.parse(game, "a", text) is a  # "a" is now the most recent
    states.parse(game, "c", text)  # "b" goes
    assert len(states) == 2
    assert states.parse(game, "a", text) is a
    assert states.parse(game, "b", text) is not a


def test_a_record_is_parsed_once_per_text_and_cannot_be_changed_in_place() -> None:
    record = {
        "id": "t1", "game": "market-fortune", "mode": "family", "seats": 2, "variants": [],
        "config": {}, "private": False, "turn_timeout_s": None, "created_by": "a",
        "created_at": 1.0, "seated": [{"agent_id": "a", "name": "a"}, None], "seed": 3,
    }
    text = json.dumps(record)
    states = ParsedStates()
    parsed = states.record("t1", text)
    assert parsed == TableRecord.model_validate(record)
    assert states.record("t1", text) is parsed
    joined = json.dumps({**record, "seated": [record["seated"][0], {"agent_id": "b", "name": "b"}]})
    assert states.record("t1", joined).seat_of("b") == 1  # another text: parsed afresh
    with pytest.raises(ValidationError):
        parsed.status = "finished"  # shared between requests, so frozen
