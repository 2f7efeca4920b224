"""Resolving an ``act`` target on the newest capture: a NodeRef or a SemanticQuery.

Rules:
- the caller holds the device's action lock and passes the newest capture, so a target is
  resolved when the action's turn comes, never on the screen it was written against;
- a NodeRef is re-resolved strictly (``bridge.core.noderef``), with the generation check when
  the request names one;
- a SemanticQuery must match exactly one node: none is NODE_NOT_FOUND, several are
  AMBIGUOUS_MATCH with a NodeRef per candidate in document order and their names in the
  message. The hub never picks one of several; ``nth`` / ``within`` in the query are how a
  caller singles out a look-alike. With a ``generation`` the query is also refused
  STALE_NODE_REF when the screen's ``screenStateId`` changed since that generation;
- a query the engine refuses (an unsafe regular expression) raises ``BadRequest``
  INVALID_PARAMS.

The outcome is ``Resolved`` (act on ``node``) or the reference error envelope to refuse with;
the caller announces and raises it.
"""

from __future__ import annotations

from bridge.core.noderef import GenerationCheck, Resolved, build_ref, resolution_error, resolve_ref
from bridge.core.query import QueryRejected, run_query
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.errors import BadRequest
from bridge.wire.client_protocol import Act
from bridge.wire.enums import ErrorCode, ProtocolErrorCode
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.node import SemanticNode
from bridge.wire.query import SemanticQuery, TextMatch

MAX_NAMED_CANDIDATES = 5


def describe_query(query: SemanticQuery) -> str:
    """A short, human spelling of a query for messages and logs (``text="Sign in" role=BUTTON``)."""

    def text(spec: TextMatch) -> str:
        suffix = "" if spec.match.value == "NORMALIZED_EXACT" else f"~{spec.match.value}"
        return f"{spec.value!r}{suffix}"

    parts: list[str] = []
    if query.role is not None:
        parts.append(f"role={query.role.value}")
    if query.text is not None:
        parts.append(f"text={text(query.text)}")
    if query.label is not None:
        parts.append(f"label={text(query.label)}")
    if query.resource_id is not None:
        parts.append(f"resourceId={query.resource_id!r}")
    if query.state is not None:
        given = {k: v for k in query.state.__struct_fields__ if (v := getattr(query.state, k))}
        parts.extend(f"{k}={v}" for k, v in given.items())
    if query.within is not None:
        inner = []
        if query.within.role is not None:
            inner.append(query.within.role.value)
        if query.within.text is not None:
            inner.append(text(query.within.text))
        if query.within.resource_id is not None:
            inner.append(repr(query.within.resource_id))
        parts.append(f"within({' '.join(inner)})")
    if query.first_visible:
        parts.append("firstVisible")
    if query.nth is not None:
        parts.append(f"nth={query.nth}")
    return " ".join(parts) or "{}"


def node_name(node: SemanticNode) -> str:
    """How a node is named to a person: role plus label, text or hint."""
    name = node.label or node.text or node.hint or node.resource_id or ""
    return (
        f"{node.role.value} {name!r} ({node.node_id})"
        if name
        else f"{node.role.value} ({node.node_id})"
    )


def resolve_query(query: SemanticQuery, capture: Capture) -> Resolved | ErrorEnvelope:
    """The single node ``query`` matches on ``capture``, or the refusal (module rules)."""
    snapshot = capture.normalized.full
    viewport = snapshot.nodes[0].bounds if snapshot.nodes else None
    outcome = run_query(capture.tree, query, viewport=viewport)
    if isinstance(outcome, QueryRejected):
        raise BadRequest(ProtocolErrorCode.INVALID_PARAMS, outcome.reason)
    said = describe_query(query)
    if not outcome.items:
        extra = (
            f" ({outcome.total} match before nth/firstVisible)"
            if outcome.total and (query.nth is not None or query.first_visible)
            else ""
        )
        return ErrorEnvelope(
            error=ErrorCode.NODE_NOT_FOUND,
            message=f"no element matches {said}{extra}",
            recovery=(
                "look at the current screen (snapshot.get) and adjust the query",
                "wait for the element (wait present) if the screen is still loading",
                "scroll the container if the element may be off screen",
            ),
        )
    if len(outcome.items) > 1:
        nodes = [item.node for item in outcome.items]
        named = ", ".join(node_name(n) for n in nodes[:MAX_NAMED_CANDIDATES])
        more = "" if len(nodes) <= MAX_NAMED_CANDIDATES else f", … ({len(nodes)} in all)"
        refs = tuple(
            ref
            for ref in (build_ref(snapshot, capture.tree, n.node_id) for n in nodes)
            if ref is not None
        )
        return ErrorEnvelope(
            error=ErrorCode.AMBIGUOUS_MATCH,
            message=f"{len(nodes)} elements match {said}: {named}{more}",
            recovery=(
                "add nth (0-based, document order) to the query to pick one",
                "add within (an enclosing element's text, role or resourceId) to the query",
                "act on one candidate's ref",
            ),
            candidates=refs,
        )
    return Resolved(outcome.items[0].node, "QUERY")


def _screen_moved(device: DeviceRuntime, generation: int, capture: Capture) -> bool:
    if generation == capture.generation:
        return False
    then = device.snapshot_at(generation)
    return then is None or then.screen_state_id != capture.normalized.full.screen_state_id


def resolve_target(msg: Act, device: DeviceRuntime, before: Capture) -> Resolved | ErrorEnvelope:
    """Resolve ``msg``'s target (its ref, or its query) on ``before``, the newest capture."""
    req = msg.request
    if msg.query is not None:
        if req.generation is not None and _screen_moved(device, req.generation, before):
            return ErrorEnvelope(
                error=ErrorCode.STALE_NODE_REF,
                message=f"the screen changed since generation {req.generation}",
                recovery=(
                    "look at the current screen and repeat the request without generation",
                    "check that the screen is the one you expect before acting",
                ),
            )
        return resolve_query(msg.query, before)
    assert req.target is not None
    check = None
    if req.generation is not None:
        check = GenerationCheck(
            req.generation, before.generation, device.snapshot_at(req.generation)
        )
    outcome = resolve_ref(
        req.target,
        before.normalized.full,
        before.tree,
        same_id_space=device.owns_snapshot(req.target.snapshot_id),
        generation=check,
    )
    if isinstance(outcome, Resolved):
        return outcome
    return resolution_error(outcome, before.normalized.full, before.tree)
