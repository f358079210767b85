"""Market Fortune actions: small value objects with a canonical, round-tripping id.

Every decision is an action of its own (section 14.1), including the choices
inside an effect. Ids name only cards the acting seat can see::

    build:stock_deck            Build (3.2) from a deck or a pile top
    risk:S.energy.3+R.energy.2  Risk (3.3); a third part attaches Innovation
    dominate                    Dominate (3.4)
    optimise:S.energy.2:S.energy.5   swap an investment card for a hand card (5.2)
    play:X.theft.1@2            play a red, naming the target seat if it has one
    end                         end the turn without playing a red
    defend:X.risk_control.3     answer an attack with a blue (7.2)
    decline                     take the attack
    declare                     close the victory window and count (8.1)
    discard:R.media.4           discard a building card
    draw:return_pile            draw inside an effect (Buy More, Liquidity)
    return:S.energy.3           return the investment holding that Stock
    take:X.fortune.2            take a card (Federal Audit, Bailout)
    give:S.mining.1             give a card (Negotiation)
    mark:S.energy.3             mark an investment (Compound Interest)
    form:S.energy.3+R.energy.2  form an investment without rolling (Fortune)
    next_game                   start the next game of a Championship match
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from engine.core import Action, MalformedAction
from engine.market_fortune import cards
from engine.market_fortune.state import Source

__all__ = [
    "SOURCES",
    "Build",
    "Declare",
    "Decline",
    "Defend",
    "Discard",
    "Dominate",
    "Draw",
    "EndTurn",
    "Form",
    "Give",
    "Mark",
    "MarketFortuneAction",
    "MarketFortuneActionType",
    "NextGame",
    "Optimise",
    "Play",
    "ReturnInvestment",
    "Risk",
    "Take",
    "parse_action",
]

SOURCES: tuple[Source, ...] = ("return_deck", "return_pile", "stock_deck", "stock_pile")
"""Building card sources in id order."""

_SOURCE_TEXT: dict[str, str] = {
    "stock_deck": "the Stock deck",
    "return_deck": "the Return deck",
    "stock_pile": "the top of the Stock discard pile",
    "return_pile": "the top of the Return discard pile",
}


def _name(card_id: str) -> str:
    return f"{cards.card_name(card_id)} ({card_id})"


class Build(Action):
    """Build (3.2): draw one building card from ``source``."""

    kind: Literal["build"] = "build"
    source: Source

    @property
    def id(self) -> str:
        """``build:<source>``."""
        return f"build:{self.source}"

    @property
    def text(self) -> str:
        return f"Build: draw from {_SOURCE_TEXT[self.source]}"


class Risk(Action):
    """Risk (3.3): put a Stock and a Return at stake and roll the Fortune Die."""

    kind: Literal["risk"] = "risk"
    stock: str
    ret: str
    innovation: str | None = None

    @property
    def id(self) -> str:
        """``risk:<stock>+<return>[+<innovation>]``."""
        return "risk:" + _pair(self.stock, self.ret, self.innovation)

    @property
    def text(self) -> str:
        return "Risk: roll to invest " + _pair_text(self.stock, self.ret, self.innovation)


class Dominate(Action):
    """Dominate (3.4): draw one Strategy, then you may play a red."""

    kind: Literal["dominate"] = "dominate"

    @property
    def id(self) -> str:
        """``dominate``."""
        return "dominate"

    @property
    def text(self) -> str:
        return "Dominate: draw a Strategy (a red drawn lets you play one red; another colour ends your turn)"


class Optimise(Action):
    """Portfolio optimisation (5.2): swap ``out`` (in an investment) for ``into`` (in hand)."""

    kind: Literal["optimise"] = "optimise"
    out: str
    into: str

    @property
    def id(self) -> str:
        """``optimise:<card leaving the investment>:<card from hand>``."""
        return f"optimise:{self.out}:{self.into}"

    @property
    def text(self) -> str:
        return (
            f"Optimise: put {_name(self.into)} into an investment in place of "
            f"{_name(self.out)}, then discard a building card"
        )


class Play(Action):
    """Play a red Strategy (6.2), naming its target seat when it has one (7.1)."""

    kind: Literal["play"] = "play"
    card: str
    target: int | None = None

    @property
    def id(self) -> str:
        """``play:<card>`` or ``play:<card>@<seat>``."""
        return f"play:{self.card}" if self.target is None else f"play:{self.card}@{self.target}"

    @property
    def text(self) -> str:
        on = "" if self.target is None else f" on seat {self.target}"
        return f"Play {_name(self.card)}{on}: {cards.kind_of(self.card).effect}"


class EndTurn(Action):
    """End the turn without playing a red (3.4)."""

    kind: Literal["end"] = "end"

    @property
    def id(self) -> str:
        """``end``."""
        return "end"

    @property
    def text(self) -> str:
        return "End your turn without playing a red Strategy"


class Defend(Action):
    """Answer the attack on you with a blue Strategy (7.2)."""

    kind: Literal["defend"] = "defend"
    card: str

    @property
    def id(self) -> str:
        """``defend:<blue card>``."""
        return f"defend:{self.card}"

    @property
    def text(self) -> str:
        return f"Defend with {_name(self.card)}: {cards.kind_of(self.card).effect}"


class Decline(Action):
    """Take the attack without a defence (7.2)."""

    kind: Literal["decline"] = "decline"

    @property
    def id(self) -> str:
        """``decline``."""
        return "decline"

    @property
    def text(self) -> str:
        return "Do not defend: the attack takes effect on you"


class Declare(Action):
    """Close the victory window: flip the investments and count (8.1)."""

    kind: Literal["declare"] = "declare"

    @property
    def id(self) -> str:
        """``declare``."""
        return "declare"

    @property
    def text(self) -> str:
        return "Declare victory: flip your investments and count them"


class Discard(Action):
    """Discard a building card from hand to its pile."""

    kind: Literal["discard"] = "discard"
    card: str

    @property
    def id(self) -> str:
        """``discard:<card>``."""
        return f"discard:{self.card}"

    @property
    def text(self) -> str:
        return f"Discard {_name(self.card)}"


class Draw(Action):
    """Draw a building card inside an effect (Buy More 12.6, Liquidity 12.11)."""

    kind: Literal["draw"] = "draw"
    source: Source

    @property
    def id(self) -> str:
        """``draw:<source>``."""
        return f"draw:{self.source}"

    @property
    def text(self) -> str:
        return f"Draw a building card from {_SOURCE_TEXT[self.source]}"


class ReturnInvestment(Action):
    """Return the investment holding ``stock`` to hand (Correction 12.3, failed count 8.2)."""

    kind: Literal["return"] = "return"
    stock: str

    @property
    def id(self) -> str:
        """``return:<stock of the investment>``."""
        return f"return:{self.stock}"

    @property
    def text(self) -> str:
        return f"Return the investment with {_name(self.stock)} to your hand"


class Take(Action):
    """Take a card: a Strategy shown by Federal Audit (12.8) or a pile card with Bailout (12.13)."""

    kind: Literal["take"] = "take"
    card: str

    @property
    def id(self) -> str:
        """``take:<card>``."""
        return f"take:{self.card}"

    @property
    def text(self) -> str:
        return f"Take {_name(self.card)}"


class Give(Action):
    """Give a building card to the Negotiation target (12.9)."""

    kind: Literal["give"] = "give"
    card: str

    @property
    def id(self) -> str:
        """``give:<card>``."""
        return f"give:{self.card}"

    @property
    def text(self) -> str:
        return f"Give {_name(self.card)}"


class Mark(Action):
    """Put the Compound Interest mark on the investment holding ``stock`` (12.5)."""

    kind: Literal["mark"] = "mark"
    stock: str

    @property
    def id(self) -> str:
        """``mark:<stock of the investment>``."""
        return f"mark:{self.stock}"

    @property
    def text(self) -> str:
        bonus = cards.COMPOUND_INTEREST_BONUS
        return f"Mark the investment with {_name(self.stock)}: +{bonus}M at the count"


class Form(Action):
    """Form an investment without rolling (Fortune 12.4)."""

    kind: Literal["form"] = "form"
    stock: str
    ret: str
    innovation: str | None = None

    @property
    def id(self) -> str:
        """``form:<stock>+<return>[+<innovation>]``."""
        return "form:" + _pair(self.stock, self.ret, self.innovation)

    @property
    def text(self) -> str:
        return "Form without rolling an investment of " + _pair_text(
            self.stock, self.ret, self.innovation
        )


class NextGame(Action):
    """Start the next game of a Championship match (9.3)."""

    kind: Literal["next_game"] = "next_game"

    @property
    def id(self) -> str:
        """``next_game``."""
        return "next_game"

    @property
    def text(self) -> str:
        return "Deal the next game of the match"


MarketFortuneAction = (
    Build
    | Risk
    | Dominate
    | Optimise
    | Play
    | EndTurn
    | Defend
    | Decline
    | Declare
    | Discard
    | Draw
    | ReturnInvestment
    | Take
    | Give
    | Mark
    | Form
    | NextGame
)
"""Any Market Fortune action."""

MarketFortuneActionType = Annotated[MarketFortuneAction, Field(discriminator="kind")]
"""The discriminated union the gateway validates structured bodies with."""


def _pair(stock: str, ret: str, innovation: str | None) -> str:
    return f"{stock}+{ret}" if innovation is None else f"{stock}+{ret}+{innovation}"


def _pair_text(stock: str, ret: str, innovation: str | None) -> str:
    text = f"{_name(stock)} + {_name(ret)}"
    return text if innovation is None else f"{text} with {_name(innovation)}"


_NO_ARGUMENT: dict[str, MarketFortuneAction] = {
    "dominate": Dominate(),
    "end": EndTurn(),
    "decline": Decline(),
    "declare": Declare(),
    "next_game": NextGame(),
}


def _card(text: str, action_id: str, *, of: tuple[str, ...] = ("stock", "return", "strategy")) -> str:
    try:
        kind = cards.card_type(text)
    except (KeyError, ValueError):
        raise MalformedAction(f"{action_id!r}: {text!r} is not a card id", rule="14.1") from None
    if kind not in of:
        raise MalformedAction(f"{action_id!r}: {text!r} is not a {' or '.join(of)} card", rule="14.1")
    return text


def _source(text: str, action_id: str) -> Source:
    for source in SOURCES:
        if source == text:
            return source
    raise MalformedAction(f"{action_id!r}: unknown source {text!r}", rule="14.1")


def _pair_parts(argument: str, action_id: str) -> tuple[str, str, str | None]:
    parts = argument.split("+")
    if len(parts) not in (2, 3):
        raise MalformedAction(f"{action_id!r}: expected <stock>+<return>[+<innovation>]", rule="14.1")
    stock = _card(parts[0], action_id, of=("stock",))
    ret = _card(parts[1], action_id, of=("return",))
    innovation = _card(parts[2], action_id, of=("strategy",)) if len(parts) == 3 else None
    return stock, ret, innovation


def parse_action(action_id: str) -> MarketFortuneAction:
    """Parse a canonical action id (see the module docstring).

    :raises MalformedAction: the id does not have one of the documented shapes.
    """
    if not isinstance(action_id, str):
        raise MalformedAction("an action id must be a string", rule="14.1")
    if action_id in _NO_ARGUMENT:
        return _NO_ARGUMENT[action_id]
    verb, colon, argument = action_id.partition(":")
    if not colon or not argument:
        raise MalformedAction(f"{action_id!r} is not an action id", rule="14.1")
    if verb in ("build", "draw"):
        source = _source(argument, action_id)
        return Build(source=source) if verb == "build" else Draw(source=source)
    if verb in ("risk", "form"):
        stock, ret, innovation = _pair_parts(argument, action_id)
        if verb == "risk":
            return Risk(stock=stock, ret=ret, innovation=innovation)
        return Form(stock=stock, ret=ret, innovation=innovation)
    if verb == "optimise":
        out, colon, into = argument.partition(":")
        if not colon:
            raise MalformedAction(f"{action_id!r}: expected optimise:<card>:<card>", rule="14.1")
        return Optimise(
            out=_card(out, action_id, of=("stock", "return")),
            into=_card(into, action_id, of=("stock", "return")),
        )
    if verb == "play":
        card, at, seat = argument.partition("@")
        target: int | None = None
        if at:
            if not seat.isdigit() or (len(seat) > 1 and seat[0] == "0"):
                raise MalformedAction(f"{action_id!r}: bad target seat {seat!r}", rule="14.1")
            target = int(seat)
        return Play(card=_card(card, action_id, of=("strategy",)), target=target)
    single: dict[str, tuple[type[Defend | Discard | Take | Give], tuple[str, ...]]] = {
        "defend": (Defend, ("strategy",)),
        "discard": (Discard, ("stock", "return")),
        "take": (Take, ("stock", "return", "strategy")),
        "give": (Give, ("stock", "return")),
    }
    if verb in single:
        model, of = single[verb]
        return model(card=_card(argument, action_id, of=of))
    if verb == "return":
        return ReturnInvestment(stock=_card(argument, action_id, of=("stock",)))
    if verb == "mark":
        return Mark(stock=_card(argument, action_id, of=("stock",)))
    raise MalformedAction(f"{action_id!r}: unknown action {verb!r}", rule="14.1")
