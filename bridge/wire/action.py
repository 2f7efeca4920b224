"""ActionRequest and ActionResult (reference ``action``): three separated result layers."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.wire.base import SECRET_REF_PATTERN, NonNegInt, WireStruct
from bridge.wire.conditions import Condition
from bridge.wire.diff import ScreenDiff
from bridge.wire.enums import (
    ActionMethod,
    ActionVerb,
    DispatchStatus,
    FallbackType,
    MutationClass,
    PredicateSource,
    Role,
    Stability,
    VerificationPolicy,
    VerificationResult,
)
from bridge.wire.noderef import NodeRef

MAX_TEXT_VALUE = 16 * 1024
SecretRef = Annotated[str, msgspec.Meta(pattern=SECRET_REF_PATTERN, max_length=512)]
ObserveMode = Literal["settle", "none"]
"""How the hub answers an action (``Act.observe``): ``settle`` (default) waits for the screen
to settle and measures the change; ``none`` answers as soon as the agent confirmed the
dispatch: ``observation.stability`` UNKNOWN, no ``afterSnapshotId``, no diff and no
verification (``verify`` must then be absent or DISPATCH_ONLY). Observers still get the
``action`` event and every frame the action causes."""


class Verify(WireStruct, frozen=True):
    """How the action's effect is checked. ``expected`` is a wait condition (see
    protocol/README.md for which policy reads which condition kind)."""

    policy: VerificationPolicy
    expected: Condition | None = None
    timeout_ms: NonNegInt = 8000
    stable_for_ms: NonNegInt = 400


class ActionRequest(WireStruct, frozen=True):
    """``value`` and ``value_ref`` are mutually exclusive; ``target`` is required for node
    actions (checked by the hub, which answers INVALID_PARAMS)."""

    action: ActionVerb
    target: NodeRef | None = None
    value: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_VALUE)] | None = None
    value_ref: SecretRef | None = None
    allow_gesture_fallback: bool = False
    verify: Verify | None = None
    idempotency_key: Annotated[str, msgspec.Meta(max_length=256)] | None = None
    generation: int | None = None

    def __post_init__(self) -> None:
        if self.value is not None and self.value_ref is not None:
            raise ValueError("value and valueRef are mutually exclusive")


class Dispatch(WireStruct, frozen=True):
    status: DispatchStatus
    method: ActionMethod | None = None
    fallback_used: bool = False
    fallback_type: FallbackType | None = None


class ActionTarget(WireStruct, frozen=True):
    """Human-readable identity of the acted node."""

    role: Role | None = None
    label: str | None = None


class Observation(WireStruct, frozen=True):
    """Objective before/after measurement; carries no success semantics."""

    before_snapshot_id: str
    stability: Stability
    screen_changed: bool
    window_changed: bool
    after_snapshot_id: str | None = None
    diff: ScreenDiff | None = None
    diff_ref: str | None = None


class Predicate(WireStruct, frozen=True):
    policy: VerificationPolicy | None = None
    source: PredicateSource | None = None
    condition: Condition | None = None


class ConcurrentAction(WireStruct, frozen=True):
    """Another session's action dispatched on the device while this action was observed
    (without a lease, observing does not hold the device's queue): its effect may be in
    what was verified."""

    session: str
    client: str
    verb: str
    """``act``, ``global``, ``app``, ``gesture``, ``key``, ``type``, ``orientation``, ..."""
    action: str


class Evidence(WireStruct, frozen=True):
    """One observation behind a verification result: what was looked at and what was seen.
    ``concurrent`` (optional): this evidence is another client's action that ran during
    the verification, so the result may be confounded by it."""

    what: str
    snapshot_id: str | None = None
    node_id: str | None = None
    observed: str | int | float | bool | None = None
    expected: str | int | float | bool | None = None
    concurrent: ConcurrentAction | None = None


class Verification(WireStruct, frozen=True):
    """Present only when a predicate applies; measures that predicate and nothing more."""

    predicate: Predicate
    result: VerificationResult
    evidence: tuple[Evidence, ...] = ()


class ActionResult(WireStruct, frozen=True):
    dispatch: Dispatch
    observation: Observation
    target: ActionTarget | None = None
    mutation_class: MutationClass | None = None
    verification: Verification | None = None
