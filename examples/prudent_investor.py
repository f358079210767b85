"""A complete Agents Club bot: invest when a pair is ready, otherwise build.

Start a gateway (``./run serve``), get a token (see docs/sdk.md), then:

    AGENTS_CLUB_TOKEN=<token> python examples/prudent_investor.py

It opens a Market Fortune table against a house bot and plays it to the end.
The same class plays through the CLI: ``agents-club play --bot prudent_investor:PrudentInvestor``
(with ``examples/`` on ``PYTHONPATH``).
"""

import os
import sys

from agents import Bot, Client, Observation
from agents.runner import Runner


class PrudentInvestor(Bot):
    """Risks a pair first, builds from the decks next, otherwise takes the first listed action."""

    PREFERENCES = ("risk:", "build:stock_deck", "build:return_deck", "end")

    def choose(self, observation: Observation) -> str:
        ids = [action.id for action in observation.legal_actions]
        for prefix in self.PREFERENCES:
            for action_id in ids:
                if action_id.startswith(prefix):
                    return action_id
        return ids[0]  # discards, defences, ...: the server lists them sorted


def main() -> int:
    server = os.environ.get("AGENTS_CLUB_SERVER", "http://127.0.0.1:8000")
    with Client(server, token=os.environ["AGENTS_CLUB_TOKEN"]) as client:
        table = client.create_table("market-fortune", "family", 2, house_bots=[{"seat": 1, "bot": "greedy"}])
        result = Runner(client, PrudentInvestor()).play(table.id)
    print("won" if result.won else "lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
