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


def test_long_rulebook_keeps_every_heading_and_first_paragraphs_first() -> None:
    sections = "".join(
        f"## {n} Section {n}\n\nRule {n} stated first.\n\nDetail {n}: {'x' * 300}\n\nExample {n}: {'y' * 300}\n\n"
        for n in range(1, 21)
    )
    long_book = RULEBOOK + sections
    digest = rules_digest(long_book, budget=3000)
    assert len(digest) <= 3000
    assert all(f"## {n} Section {n}" in digest and f"Rule {n} stated first." in digest for n in range(1, 21))
    assert "Example 20" not in digest
    assert digest.index("## 2 Section 2") < digest.index("## 10 Section 10")  # the rulebook's order
    assert digest.endswith("left out]")
    roomier = rules_digest(long_book, budget=9000)
    assert "Detail 20" in roomier and "Example 20" not in roomier


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
