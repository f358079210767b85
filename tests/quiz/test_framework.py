"""The quiz framework on a small bank built here: rendering, checking, generation, grading."""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from quiz import (
    PUZZLE_CATEGORY,
    Draft,
    IssuedPuzzle,
    PassRule,
    Puzzle,
    QuestionFormat,
    QuestionTemplate,
    QuizBank,
    generate,
    grade,
)
from quiz.questions import canonical, is_correct, render


class PairSumAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    positions: list[int]


class PairSum:
    """A tiny puzzle kind: pick two numbers of a list that add up to a target."""

    name = "pair_sum"
    answer_model = PairSumAnswer

    def generate(self, seed: int) -> IssuedPuzzle:
        rng = random.Random(seed)
        numbers = rng.sample(range(1, 400), 200)
        target = numbers[3] + numbers[150]
        return IssuedPuzzle(
            puzzle=Puzzle(
                kind=self.name,
                title="Pair sum",
                sections=("1",),
                prompt=f"Two positions whose numbers add to {target}.",
                situation={"numbers": numbers, "target": target},
                answer_format='{"positions": [i, j]}',
            )
        )

    def misfits(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str]]:
        return []

    def check(self, issued: IssuedPuzzle, answer: Mapping[str, Any]) -> bool:
        positions = answer.get("positions")
        numbers = issued.puzzle.situation["numbers"]
        if not isinstance(positions, list) or len(positions) != 2:
            return False
        i, j = positions
        if not all(isinstance(p, int) and 0 <= p < len(numbers) for p in (i, j)) or i == j:
            return False
        return bool(numbers[i] + numbers[j] == issued.puzzle.situation["target"])

    def solve(self, issued: IssuedPuzzle) -> dict[str, Any]:
        numbers = issued.puzzle.situation["numbers"]
        target = issued.puzzle.situation["target"]
        for i, a in enumerate(numbers):
            for j, b in enumerate(numbers):
                if i != j and a + b == target:
                    return {"positions": [i, j]}
        raise AssertionError("unsolvable")

    def guess_chance(self, issued: IssuedPuzzle) -> Fraction:
        numbers = issued.puzzle.situation["numbers"]
        target = issued.puzzle.situation["target"]
        hits = sum(1 for a in numbers for b in numbers if a != b and a + b == target)
        return Fraction(hits, len(numbers) * (len(numbers) - 1))


def _fixed(prompt: str, answer: str | int | bool, *distractors: str) -> QuestionTemplate:
    fmt: QuestionFormat = (
        "single_choice" if distractors else "integer" if isinstance(answer, int) and not isinstance(answer, bool) else "yes_no"
    )
    return QuestionTemplate(
        id=f"t.{prompt}",
        category=prompt.split()[0],
        section="1.1",
        build=lambda rng: Draft(prompt=prompt, format=fmt, answer=answer, distractors=distractors),
    )


BANK = QuizBank(
    game="toy",
    rulebook="docs/toy.md",
    templates=[
        _fixed("colours of the sky?", "blue", "green", "red", "black"),
        _fixed("count the legs of a cat", 4),
        _fixed("yes cats purr?", True),
        _fixed("no cats bark?", False),
    ],
    puzzle_kinds=[PairSum()],
)


def test_single_choice_options_are_shuffled_and_checked_by_id() -> None:
    positions = set()
    for seed in range(40):
        issued = render(BANK.templates[0], random.Random(seed), 1)
        texts = {o.id: o.text for o in issued.question.options}
        assert texts[issued.expected] == "blue"
        assert is_correct(issued, issued.expected.lower())
        wrong = next(o.id for o in issued.question.options if o.id != issued.expected)
        assert not is_correct(issued, wrong)
        assert not is_correct(issued, 1)
        positions.add(issued.expected)
    assert len(positions) == 4  # the right answer moves between positions


def test_integer_and_yes_no_answers() -> None:
    legs = render(BANK.templates[1], random.Random(0), 2)
    assert is_correct(legs, 4) and not is_correct(legs, 5)
    assert not is_correct(legs, "4") and not is_correct(legs, True)
    purr = render(BANK.templates[2], random.Random(0), 3)
    assert is_correct(purr, True) and is_correct(purr, "YES") and not is_correct(purr, "no")
    assert canonical(purr.question, 1) is None
    bark = render(BANK.templates[3], random.Random(0), 4)
    assert is_correct(bark, False) and not is_correct(bark, None)


def test_bad_drafts_are_refused() -> None:
    with pytest.raises(ValueError):
        Draft(prompt="?", format="single_choice", answer="a", distractors=("a", "b"))
    with pytest.raises(ValueError):
        Draft(prompt="?", format="integer", answer=True)
    with pytest.raises(ValueError):
        Draft(prompt="?", format="yes_no", answer=1)


def test_generation_is_seeded_and_categories_distinct() -> None:
    first = generate(BANK, 7)
    assert first == generate(BANK, 7)
    assert generate(BANK, 8) != first or generate(BANK, 9) != first
    for seed in range(50):
        challenge = generate(BANK, seed)
        categories = [q.question.category for q in challenge.questions]
        assert len(set(categories)) == 3
        assert [q.question.id for q in challenge.questions] == ["q1", "q2", "q3"]


def test_grading_reports_score_and_missed_categories_only() -> None:
    challenge = generate(BANK, 3)
    kind = BANK.puzzle_kind("pair_sum")
    right = {q.question.id: q.expected for q in challenge.questions}
    solution = kind.solve(challenge.puzzle)
    passed = grade(BANK, challenge, right, solution)
    assert passed.questions_correct == 3 and passed.puzzle_solved
    assert passed.missed_categories == ()
    assert PassRule().passes(passed)

    first = challenge.questions[0].question
    wrong: dict[str, str | int | bool] = dict(right)
    wrong[first.id] = "Z" if first.format == "single_choice" else 999 if first.format == "integer" else (right[first.id] == "no")
    failed = grade(BANK, challenge, wrong, {"positions": [0, 0]})
    assert failed.questions_correct == 2 and not failed.puzzle_solved
    assert failed.missed_categories == (first.category, PUZZLE_CATEGORY)
    assert not PassRule().passes(failed)
    assert PassRule(questions_required=2, puzzle_required=False).passes(failed)
    assert not grade(BANK, challenge, {}, None).puzzle_solved


class NeverFits(PairSum):
    """A kind whose generator never finds a situation."""

    name = "never"

    def generate(self, seed: int) -> IssuedPuzzle:
        from quiz import UnsolvablePuzzle

        raise UnsolvablePuzzle("no situation")


def test_a_kind_that_cannot_generate_is_drawn_again_then_reported() -> None:
    from quiz import UnsolvablePuzzle

    mixed = QuizBank(game="toy2", rulebook="", templates=BANK.templates, puzzle_kinds=[NeverFits(), PairSum()])
    for seed in range(20):
        assert generate(mixed, seed).puzzle.puzzle.kind == "pair_sum"
    broken = QuizBank(game="toy3", rulebook="", templates=BANK.templates, puzzle_kinds=[NeverFits()])
    with pytest.raises(UnsolvablePuzzle):
        generate(broken, 1)
