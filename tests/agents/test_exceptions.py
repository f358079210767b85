"""The SDK's exception tree: every gateway code has its own class, unknown codes fall back."""

from __future__ import annotations

import pytest

from agents import _exceptions as errors

CONTRACT_CODES = {
    "auth/missing": errors.AuthMissing,
    "auth/invalid": errors.AuthInvalid,
    "auth/expired": errors.AuthExpired,
    "auth/revoked": errors.AuthRevoked,
    "auth/wrong_scope": errors.WrongScope,
    "table/not_found": errors.TableNotFound,
    "table/full": errors.TableFull,
    "table/already_seated": errors.AlreadySeated,
    "table/not_seated": errors.NotSeated,
    "table/started": errors.TableStarted,
    "table/not_finished": errors.TableNotFinished,
    "table/stale_version": errors.StaleVersion,
    "action/not_your_turn": errors.NotYourTurn,
    "action/illegal": errors.IllegalAction,
    "action/malformed": errors.MalformedAction,
    "idempotency/conflict": errors.IdempotencyConflict,
    "request/invalid": errors.InvalidRequest,
    "request/not_found": errors.RouteNotFound,
    "request/method_not_allowed": errors.MethodNotAllowed,
    "request/unreadable": errors.UnreadableBody,
    "rate/limited": errors.RateLimited,
    "server/error": errors.ServerError,
    "game/not_found": errors.GameNotFound,
}


@pytest.mark.parametrize(("code", "expected"), sorted(CONTRACT_CODES.items()))
def test_every_contract_code_has_its_own_class(code: str, expected: type[errors.ApiError]) -> None:
    error = errors.error_from_problem({"code": code, "title": "t", "detail": "d"}, status=409)
    assert type(error) is expected
    assert expected.code == code
    assert error.code_received == code
    assert error.detail == "d"
    assert isinstance(error, errors.AgentsClubError)


def test_classes_are_distinct_per_code() -> None:
    assert len(set(CONTRACT_CODES.values())) == len(CONTRACT_CODES)


def test_docstring_draws_every_class_in_the_tree() -> None:
    doc = errors.__doc__ or ""
    for name in errors.__all__:
        if name[0].isupper():
            assert name in doc, f"{name} missing from the drawn tree"


def test_unknown_code_maps_to_its_family_or_to_api_error() -> None:
    assert type(errors.error_from_problem({"code": "table/on_fire"}, status=409)) is errors.TableError
    assert type(errors.error_from_problem({"code": "admission/moon_phase"}, status=410)) is errors.AdmissionError
    assert type(errors.error_from_problem({"code": "weird/thing"}, status=400)) is errors.ApiError
    assert type(errors.error_from_problem({}, status=502)) is errors.ServerError


def test_problem_members_stay_readable() -> None:
    stale = errors.error_from_problem({"code": "table/stale_version", "current_version": 7}, status=409)
    assert isinstance(stale, errors.StaleVersion)
    assert stale.current_version == 7
    limited = errors.error_from_problem({"code": "rate/limited", "retry_after": 3}, status=429)
    assert isinstance(limited, errors.RateLimited)
    assert limited.retry_after == 3.0
    illegal = errors.error_from_problem({"code": "action/illegal", "rule": "3.2"}, status=409)
    assert isinstance(illegal, errors.IllegalAction)
    assert illegal.rule == "3.2"
    invalid = errors.error_from_problem({"code": "request/invalid", "errors": [{"loc": ["body"]}]}, status=422)
    assert isinstance(invalid, errors.InvalidRequest)
    assert invalid.errors == [{"loc": ["body"]}]
    assert "409 action/illegal" in str(illegal)


def test_the_message_quotes_the_first_two_listed_errors() -> None:
    listed = [{"loc": ["body", "seats"], "msg": "too many"}, {"loc": [], "msg": "no loc"}, {"msg": "third"}]
    invalid = errors.error_from_problem(
        {"code": "request/invalid", "detail": "Does not match.", "errors": listed}, status=422
    )
    assert str(invalid) == "422 request/invalid: Does not match. (body.seats: too many; no loc; and 1 more)"
    odd = errors.error_from_problem({"code": "table/invalid_config", "detail": "No.", "errors": ["plain"]}, status=422)
    assert str(odd) == "422 table/invalid_config: No. (plain)"
    told = errors.error_from_problem({"code": "table/invalid_config", "detail": "No (seats: too many).",
                                      "errors": [{"loc": ["seats"], "msg": "too many"}]}, status=422)
    assert str(told) == "422 table/invalid_config: No (seats: too many)."  # not said twice
    # No listed errors (or a malformed member): the message is the detail alone.
    for problem in ({"code": "table/full", "detail": "Full."}, {"code": "table/full", "detail": "Full.", "errors": "x"}):
        assert str(errors.error_from_problem(problem, status=409)) == "409 table/full: Full."


def test_every_listed_error_is_in_words_and_the_headline_is_the_message_without_them() -> None:
    refused = errors.error_from_problem({
        "code": "request/invalid", "detail": "Bad.",
        "errors": [{"loc": ["body", "seats"], "msg": "too many"}, {"loc": [], "msg": "odd"}, 3],
    }, status=422)
    assert refused.error_messages == ["body.seats: too many", "odd", "3"]
    assert refused.headline == "422 request/invalid: Bad."
    assert str(refused) == "422 request/invalid: Bad. (body.seats: too many; odd; and 1 more)"


def test_the_cli_lists_the_reasons_the_detail_does_not_say() -> None:
    from agents_club_cli.failures import failure_lines

    refused = errors.error_from_problem({
        "code": "table/invalid_config", "detail": "Does not fit (seats: too many).",
        "errors": [{"loc": ["seats"], "msg": "too many"}, {"loc": ["mode"], "msg": "unknown"}],
    }, status=422)
    assert failure_lines("play", refused) == [
        "agents-club play: 422 table/invalid_config: Does not fit (seats: too many).", "  mode: unknown"]
