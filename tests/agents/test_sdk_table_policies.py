"""The SDK and the table policies: ``TooManyTables`` at the cap, ``close_table``, private tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from agents import NotTableCreator, TableNotFound, TooManyTables

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway


def test_the_cap_is_a_typed_error_and_closing_frees_a_place(gateway: RunningGateway) -> None:
    limit = gateway.settings.max_active_tables_per_agent
    with gateway.client(gateway.mint()) as alice, gateway.client(gateway.mint()) as bob:
        opened = [alice.create_table("market-fortune", "family", 2, join=False, private=True)
                  for _ in range(limit)]
        with pytest.raises(TooManyTables) as refused:
            alice.create_table("market-fortune", "family", 2)
        assert refused.value.status == 409 and refused.value.limit == limit
        assert sorted(refused.value.active_tables) == sorted(table.id for table in opened)
        with pytest.raises(TableNotFound):
            bob.table(opened[0].id)
        bob.join(opened[0].id)
        assert bob.table(opened[0].id).your_seat == 0
        with pytest.raises(NotTableCreator):
            bob.close_table(opened[0].id)
        closed = alice.close_table(opened[0].id)
        assert closed.status == "finished" and closed.outcome is not None
        assert closed.outcome.reason == "closed"
        alice.create_table("market-fortune", "family", 2)
