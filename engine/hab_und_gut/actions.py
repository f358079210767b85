"""The decisions a seat takes in Hab & Gut, as small value objects with round-trip ids.

Decisions are step by step so the list an agent reads stays short (rulebook
9): a stock phase is a series of ``buy:<commodity>`` / ``sell:<commodity>`` /
``donate:<commodity>`` steps closed by ``end``; a market phase is
``play:<side>:<commodity><value>`` (the card played in full) followed by
``halve:<side>:<commodity><value>`` from the other holder. Market cards are
named by their face, not their id: two cards with the same face do the same
thing, so listing both would only lengthen the list.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from engine.core import Action, MalformedAction
from engine.text import counted

from .components import COMMODITIES, MARKET_VALUES, Commodity
from .state import Side

__all__ = [
    "Buy",
    "Donate",
    "EndStock",
    "HabAction",
    "HabActionUnion",
    "Halve",
    "Play",
    "Sell",
    "parse_action",
]


class Buy(Action):
    """Buy one share of ``commodity`` at its current price (rulebook 4.3)."""

    kind: Literal["buy"] = "buy"
    commodity: Commodity

    @property
    def id(self) -> str:
        """``buy:<commodity>``."""
        return f"buy:{self.commodity}"

    @property
    def text(self) -> str:
        return f"buy one {self.commodity} share at its current price"


class Sell(Action):
    """Sell one of your shares of ``commodity`` at its current price (rulebook 4.4)."""

    kind: Literal["sell"] = "sell"
    commodity: Commodity

    @property
    def id(self) -> str:
        """``sell:<commodity>``."""
        return f"sell:{self.commodity}"

    @property
    def text(self) -> str:
        return f"sell one of your {self.commodity} shares at its current price"


class Donate(Action):
    """Place one of your ``commodity`` shares face down on your charity board (rulebook 4.5)."""

    kind: Literal["donate"] = "donate"
    commodity: Commodity

    @property
    def id(self) -> str:
        """``donate:<commodity>``."""
        return f"donate:{self.commodity}"

    @property
    def text(self) -> str:
        return f"place one of your {self.commodity} shares face down on your charity board"


class EndStock(Action):
    """Finish your stock phase (rulebook 4.1)."""

    kind: Literal["end"] = "end"

    @property
    def id(self) -> str:
        """``end``."""
        return "end"

    @property
    def text(self) -> str:
        return "finish your stock phase"


class _MarketPick(Action):
    """A market card chosen by holder side and face."""

    side: Side
    commodity: Commodity
    value: int

    @property
    def face(self) -> str:
        """The card's face as in ids: ``coal+4``."""
        return f"{self.commodity}{self.value:+d}"


class Play(_MarketPick):
    """Play a card from the holder on ``side`` in full (rulebook 5.1)."""

    kind: Literal["play"] = "play"

    @property
    def id(self) -> str:
        """``play:<side>:<commodity><value>``."""
        return f"play:{self.side}:{self.face}"

    @property
    def text(self) -> str:
        return (
            f"play the {self.commodity} {self.value:+d} card from your {self.side} holder "
            f"in full: {self.commodity} moves {counted(self.value, 'space', signed=True)}"
        )


class Halve(_MarketPick):
    """Play a card from the holder on ``side`` at half strength (rulebook 5.1)."""

    kind: Literal["halve"] = "halve"

    @property
    def id(self) -> str:
        """``halve:<side>:<commodity><value>``."""
        return f"halve:{self.side}:{self.face}"

    @property
    def text(self) -> str:
        return (
            f"halve the {self.commodity} {self.value:+d} card from your {self.side} holder: "
            f"{self.commodity} moves {counted(self.value // 2, 'space', signed=True)}"
        )


HabAction = Buy | Sell | Donate | EndStock | Play | Halve
"""Any Hab & Gut action."""

HabActionUnion = Annotated[HabAction, Field(discriminator="kind")]
"""The discriminated union the gateway validates structured action bodies with."""

_COMMODITY = "|".join(COMMODITIES)
_TRADE = re.compile(rf"(buy|sell|donate):({_COMMODITY})")
_PICK = re.compile(rf"(play|halve):(left|right):({_COMMODITY})([+-][0-9])")
_VALUES = frozenset(MARKET_VALUES)


def parse_action(action_id: str) -> HabAction:
    """Parse a canonical action id.

    :raises MalformedAction: if ``action_id`` is not an id of this game.
    """
    if action_id == "end":
        return EndStock()
    trade = _TRADE.fullmatch(action_id)
    if trade is not None:
        verb, commodity = trade.groups()
        if verb == "buy":
            return Buy.model_validate({"commodity": commodity})
        if verb == "sell":
            return Sell.model_validate({"commodity": commodity})
        return Donate.model_validate({"commodity": commodity})
    pick = _PICK.fullmatch(action_id)
    if pick is not None:
        verb, side, commodity, value = pick.groups()
        if int(value) not in _VALUES:
            raise MalformedAction(f"no market card moves {value} spaces", rule="1.3")
        fields = {"side": side, "commodity": commodity, "value": int(value)}
        if verb == "play":
            return Play.model_validate(fields)
        return Halve.model_validate(fields)
    raise MalformedAction(
        f"{action_id!r} is not a Hab & Gut action id "
        "(buy:<commodity>, sell:<commodity>, donate:<commodity>, end, "
        "play:<left|right>:<commodity><+n|-n>, halve:<left|right>:<commodity><+n|-n>)",
        rule="9",
    )
