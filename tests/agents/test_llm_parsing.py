"""Reading the chosen action id out of model replies of every usual shape."""

from __future__ import annotations

from agents.llm.parsing import parse_action_reply

LEGAL = ["build:stock", "build:stock:discard:s-3", "dominate", "risk:s-1:r-1"]


def test_json_object_is_read() -> None:
    choice = parse_action_reply('I will dominate.\n{"action": "dominate"}', LEGAL)
    assert choice.usable and choice.action_id == "dominate"


def test_json_in_a_code_fence_and_the_last_object_wins() -> None:
    reply = 'Maybe {"action": "build:stock"}?\n```json\n{"action": "risk:s-1:r-1"}\n```'
    assert parse_action_reply(reply, LEGAL).action_id == "risk:s-1:r-1"


def test_action_line_is_read() -> None:
    assert parse_action_reply("Reasoning...\nACTION: build:stock", LEGAL).action_id == "build:stock"


def test_one_id_in_prose_is_read_without_matching_inside_a_longer_id() -> None:
    reply = "The best move is build:stock:discard:s-3 because it keeps the pair."
    assert parse_action_reply(reply, LEGAL).action_id == "build:stock:discard:s-3"
    assert parse_action_reply("I pick build:stock now", LEGAL).action_id == "build:stock"


def test_option_number_alone_is_read() -> None:
    assert parse_action_reply("3", LEGAL).action_id == "dominate"
    assert not parse_action_reply("9", LEGAL).usable


def test_illegal_id_is_refused_with_a_reason() -> None:
    choice = parse_action_reply('{"action": "steal:everything"}', LEGAL)
    assert not choice.usable
    assert "steal:everything" in choice.reason and "not one of the legal" in choice.reason


def test_several_ids_in_prose_is_ambiguous() -> None:
    choice = parse_action_reply("either dominate or build:stock", LEGAL)
    assert not choice.usable and "several" in choice.reason


def test_empty_and_unrelated_replies_are_unusable() -> None:
    assert parse_action_reply("   ", LEGAL).reason == "the reply was empty"
    assert parse_action_reply("I am not sure what to do.", LEGAL).reason == "the reply names no legal action id"


def test_broken_json_falls_back_to_other_readers() -> None:
    assert parse_action_reply('{"action": dominate', LEGAL).action_id == "dominate"
