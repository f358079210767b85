"""Prompt building, the rules digest and the JSONL transcript."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agents.llm.prompts import retry_message, rules_digest, system_message, turn_message
from agents.llm.transcript import Transcript


@dataclass(frozen=True)
class Option:
    id: str
    text: str


RULEBOOK = """# A game
<!-- authors' note: hidden from the digest -->
## 1 Turn
- 1.1 Draw a card. Then discard one when above eight, never the card just taken.



- 1.2 Roll the die. On + keep the pair.
"""


def test_short_rulebook_is_kept_whole_without_comments() -> None:
    digest = rules_digest(RULEBOOK)
    assert "authors' note" not in digest
    assert "never the card just taken" in digest
    assert "\n\n\n" not in digest


def test_long_rulebook_keeps_first_sentences_then_is_cut() -> None:
    long_book = RULEBOOK + "".join(f"- 2.{i} Rule {i}. Long detail {'x' * 200}\n" for i in range(100))
    digest = rules_digest(long_book, budget=3000)
    assert len(digest) <= 3000
    assert "- 1.1 Draw a card." in digest
    assert "never the card just taken" not in digest
    assert "- 2.99 Rule 99." in digest
    cut = rules_digest(long_book, budget=600)
    assert len(cut) <= 600
    assert cut.startswith("# A game")
    assert cut.endswith("left out]")


def test_turn_prompt_holds_digest_summary_and_numbered_legal_actions() -> None:
    legal = [Option("build:stock", "Build: draw from the Stock deck"), Option("dominate", "Dominate")]
    system = system_message("Market Fortune", "DIGEST-TEXT")
    user = turn_message("You hold 8 cards.", legal, seat=2, version=14)
    assert system["role"] == "system" and "DIGEST-TEXT" in system["content"]
    assert "You hold 8 cards." in user["content"]
    assert "1. build:stock — Build: draw from the Stock deck" in user["content"]
    assert "2. dominate — Dominate" in user["content"]
    assert "seat 2" in user["content"] and "version 14" in user["content"]
    retry = retry_message("the reply was empty", legal)
    assert "the reply was empty" in retry["content"] and "build:stock, dominate" in retry["content"]


def test_transcript_appends_json_lines(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "games" / "t1.jsonl")
    transcript.record("prompt", messages=[{"role": "user", "content": "hi"}])
    transcript.record("choice", action="dominate", attempts=1)
    records = transcript.records()
    assert [r["kind"] for r in records] == ["prompt", "choice"]
    assert records[1]["action"] == "dominate"
    assert all(isinstance(r["ts"], float) for r in records)
    assert len((tmp_path / "games" / "t1.jsonl").read_text().splitlines()) == 2
