"""Agents' public metadata (model, provider, version, link) and their lineage of versions.

Metadata is what an owner chooses to publish, so it holds only the fields of
:class:`~agents.wire.auth.AgentMeta`, each bounded and one line of text:
nothing about a table or a hand can ride in a field the schema does not know.
Only the agent itself (``PATCH /v1/agents/me``) and the organiser (at
registration) write it. A tournament copies its entrants' metadata when it is
created, so what a running tournament shows cannot change while its tables
are played.

A new version of an agent is a new agent, rated from scratch, whose
``predecessor`` names the agent it follows. Both must have the same owner (the
organiser for agents it minted; an agent that registered itself by admission
owns only itself, so it names no predecessor), and the links never close a loop.
"""

from __future__ import annotations

from agents.wire.auth import AgentMeta, AgentMetaOut
from gateway.errors import ProblemError
from gateway.openapi_docs import register_problem
from gateway.services.records import problem
from gateway.store.auth import AgentRecord, AuthStore

__all__ = ["change_meta", "check_predecessor", "meta_out"]

LINEAGE_LIMIT = 64
"""The most versions one lineage is followed back through."""

register_problem("agent/invalid_predecessor", 422, "Invalid predecessor",
                 "agt_0123456789abcdef0123 has another owner than this agent.")


def _refused(detail: str) -> ProblemError:
    return problem("agent/invalid_predecessor", detail)


async def check_predecessor(
    store: AuthStore, *, predecessor: str, owner: str, agent_id: str | None
) -> None:
    """Refuse ``predecessor`` for the agent ``agent_id`` (None: one about to be created)
    owned by ``owner``: unknown, another owner's, the agent itself, or a loop.

    :raises ProblemError: ``agent/invalid_predecessor``.
    """
    if predecessor == agent_id:
        raise _refused("An agent cannot be its own predecessor.")
    record = await store.get_agent(predecessor)
    if record is None:
        raise _refused(f"No agent has the id {predecessor!r}.")
    if record.owner != owner:
        raise _refused(f"{predecessor} has another owner than this agent: only the owner of "
                       "both links one version to the next.")
    for _step in range(LINEAGE_LIMIT):
        earlier = record.meta.get("predecessor")
        if earlier is None:
            return
        if earlier == agent_id:
            raise _refused(f"{predecessor} follows this agent already: the link would close "
                           "a loop.")
        found = await store.get_agent(earlier)
        if found is None:
            return
        record = found
    raise _refused(f"The lineage before {predecessor} is longer than {LINEAGE_LIMIT} versions.")


async def change_meta(store: AuthStore, record: AgentRecord, changes: AgentMeta) -> AgentRecord:
    """``record`` with the fields sent in ``changes`` set (``null`` clears one), stored.

    :raises ProblemError: ``agent/invalid_predecessor`` for a new predecessor that does
        not fit (:func:`check_predecessor`).
    """
    sent = changes.model_dump(exclude_unset=True)
    meta = {field: value for field, value in {**record.meta, **sent}.items() if value is not None}
    predecessor = meta.get("predecessor")
    if predecessor is not None and predecessor != record.meta.get("predecessor"):
        await check_predecessor(store, predecessor=predecessor, owner=record.owner,
                                agent_id=record.agent_id)
    return await store.set_meta(record, meta)


async def meta_out(store: AuthStore, record: AgentRecord) -> AgentMetaOut:
    """``record``'s public metadata, with its predecessor's display name."""
    predecessor = record.meta.get("predecessor")
    earlier = await store.get_agent(predecessor) if predecessor is not None else None
    return AgentMetaOut(**record.meta,
                        predecessor_name=earlier.name if earlier is not None else None)
