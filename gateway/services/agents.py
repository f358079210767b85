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

from agents.wire.auth import AgentMeta, AgentMetaOut, AgentProfile
from gateway.errors import ProblemError
from gateway.openapi_docs import register_problem
from gateway.security import VerifiedToken
from gateway.services.records import problem
from gateway.store.auth import AgentNameTaken, AgentRecord, AuthStore

__all__ = ["agent_named", "change_meta", "check_predecessor", "meta_out", "profile"]

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


async def agent_named(
    store: AuthStore, *, name: str, scopes: set[str], meta: AgentMeta | None, owner: str
) -> AgentRecord:
    """The agent called ``name`` with ``scopes`` granted and ``meta`` set; created (owned
    by ``owner``) when new. Two callers creating the same name at once get the same agent.

    :raises ProblemError: ``agent/invalid_predecessor`` (see :func:`check_predecessor`),
        or ``agent/name_taken`` when the name stays contested.
    """
    for _attempt in range(3):
        record = await store.find_agent_by_name(name)
        if record is None:
            fields = meta.model_dump(exclude_none=True) if meta is not None else {}
            if "predecessor" in fields:
                await check_predecessor(store, predecessor=fields["predecessor"],
                                        owner=owner, agent_id=None)
            try:
                record, _secret = await store.create_agent(
                    name=name, scopes=scopes, owner=owner, meta=fields)
            except AgentNameTaken:
                continue  # someone created it meanwhile: grant to theirs
            return record
        if not scopes <= record.scopes:
            record = await store.add_scopes(record.agent_id, *scopes)
        if meta is not None:
            record = await change_meta(store, record, meta)
        return record
    raise problem("agent/name_taken", "That agent name is being registered concurrently; retry.")


async def profile(store: AuthStore, token: VerifiedToken, record: AgentRecord | None) -> AgentProfile:
    """Who the bearer of ``token`` is: its id, name, scopes, the token's expiry and, for an
    agent (``record``), when it registered and its public metadata."""
    principal = token.principal
    scopes = sorted(principal.scopes)
    return AgentProfile(
        agent_id=principal.agent_id,
        name=principal.name,
        kind=principal.kind,
        scopes=scopes,
        games=[scope.removeprefix("game:") for scope in scopes if scope.startswith("game:")],
        token_expires_at=token.expires_at,
        registered_at=record.created_at if record is not None else None,
        meta=await meta_out(store, record) if record is not None else None,
    )
