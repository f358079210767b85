"""The server-sent events decoder and the retry policy's reading of Retry-After."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx

from agents._retry import RetryPolicy, retry_after_seconds
from agents._sse import SseDecoder


def test_sse_blocks_ids_multiline_data_and_comments() -> None:
    lines = [
        ": keep-alive",
        "",
        "id: 1-0",
        "event: table",
        "data: {\"a\":",
        "data: 1}",
        "",
        "retry: 1500",
        "data: no id here",
        "",
        "id: 7-0",
        "",
    ]
    decoder = SseDecoder()
    events = list(decoder.iter_events(lines))
    assert [(e.id, e.event, e.data) for e in events] == [
        ("1-0", "table", '{"a":\n1}'),
        ("1-0", "message", "no id here"),
    ]
    assert events[1].retry_ms == 1500
    # An id-only block moves the resume point without dispatching an event.
    assert decoder.last_event_id == "7-0"


def test_retry_after_header_seconds_date_and_problem_member() -> None:
    assert retry_after_seconds(httpx.Response(429, headers={"Retry-After": "2"})) == 2.0
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    waited = retry_after_seconds(httpx.Response(503, headers={"Retry-After": future}))
    assert waited is not None and 25 <= waited <= 31
    problem = httpx.Response(
        429,
        headers={"content-type": "application/problem+json"},
        json={"code": "rate/limited", "retry_after": 4},
    )
    assert retry_after_seconds(problem) == 4.0
    assert retry_after_seconds(httpx.Response(500)) is None


def test_policy_retries_429_always_and_5xx_only_when_repeatable() -> None:
    policy = RetryPolicy()
    assert policy.should_retry(429, repeatable=False)
    assert policy.should_retry(503, repeatable=True)
    assert not policy.should_retry(503, repeatable=False)
    assert not policy.should_retry(409, repeatable=True)
    assert policy.wait_s(0, httpx.Response(429, headers={"Retry-After": "3"})) == 3.0
    for attempt in range(6):
        wait = policy.wait_s(attempt, None)
        assert 0 < wait <= policy.backoff_cap_s


def test_an_unfinished_block_does_not_move_the_resume_point() -> None:
    decoder = SseDecoder()
    (complete,) = decoder.iter_events(["id: 3", "data: {}", ""])
    assert complete.id == "3"
    decoder.feed("id: 4")
    decoder.feed('data: {"half')
    # The connection breaks here: resuming must ask for the events after 3.
    assert decoder.last_event_id == "3"


def test_only_the_empty_end_frame_closes_a_stream() -> None:
    from agents._events import _Cursor
    from agents._sse import ServerSentEvent

    cursor = _Cursor(after=None, max_failures=3)
    engine_event = '{"id": 3, "kind": "end", "text": "Seat 1 ends its phase.", "data": {}, "private": false}'
    event = cursor.sse_event(ServerSentEvent(data=engine_event, event="end", id="3"))
    assert event is not None and event.id == 3 and not cursor.finished
    assert cursor.sse_event(ServerSentEvent(data="{}", event="end")) is None
    assert cursor.finished
