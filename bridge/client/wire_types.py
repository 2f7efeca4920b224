"""The wire types a client program uses, in one place: every result a ``Device`` /
``HubConnection`` method returns, every enum of the protocol, and the parts a call takes
(queries, conditions, ``Verify``, ``Confirm``, ``NodeRef``). ``bridge.client`` re-exports each
name (``from bridge.client import ActionResult, VerificationResult``); they are the
``bridge.wire`` types themselves, so ``isinstance`` and ``is`` comparisons hold.

The import list below is the only list of these names: each is imported ``as`` itself (an
explicit re-export, for mypy --strict), ``WIRE_TYPES`` is read from the module, and
``bridge.client`` finds them through it. To export one more type, import it here.
"""

from __future__ import annotations

from bridge.wire.acquire import AcquireResult as AcquireResult
from bridge.wire.acquire import DeviceSelector as DeviceSelector
from bridge.wire.action import ActionRequest as ActionRequest
from bridge.wire.action import ActionResult as ActionResult
from bridge.wire.action import Verify as Verify
from bridge.wire.client_protocol import DeltaEvent as DeltaEvent
from bridge.wire.client_protocol import DeviceSummary as DeviceSummary
from bridge.wire.client_protocol import FindMatch as FindMatch
from bridge.wire.client_protocol import FindResult as FindResult
from bridge.wire.client_protocol import HistoryResult as HistoryResult
from bridge.wire.client_protocol import JournalTimelineResult as JournalTimelineResult
from bridge.wire.client_protocol import LeaseResult as LeaseResult
from bridge.wire.client_protocol import PatchEvent as PatchEvent
from bridge.wire.client_protocol import PongResult as PongResult
from bridge.wire.client_protocol import ResolveResult as ResolveResult
from bridge.wire.client_protocol import ScreenshotResult as ScreenshotResult
from bridge.wire.client_protocol import SnapshotEvent as SnapshotEvent
from bridge.wire.client_protocol import SnapshotResult as SnapshotResult
from bridge.wire.client_protocol import SubscribeResult as SubscribeResult
from bridge.wire.client_protocol import WaitResult as WaitResult
from bridge.wire.conditions import Absent as Absent
from bridge.wire.conditions import AllOf as AllOf
from bridge.wire.conditions import AnyOf as AnyOf
from bridge.wire.conditions import AppForeground as AppForeground
from bridge.wire.conditions import ClipboardEquals as ClipboardEquals
from bridge.wire.conditions import Not as Not
from bridge.wire.conditions import Present as Present
from bridge.wire.conditions import ScreenShown as ScreenShown
from bridge.wire.conditions import Stable as Stable
from bridge.wire.conditions import StateIs as StateIs
from bridge.wire.conditions import ValueEquals as ValueEquals
from bridge.wire.device_capabilities import AlertChoice as AlertChoice
from bridge.wire.device_capabilities import AlertListResult as AlertListResult
from bridge.wire.device_capabilities import Permission as Permission
from bridge.wire.device_capabilities import PermissionAction as PermissionAction
from bridge.wire.device_control import AppsListResult as AppsListResult
from bridge.wire.device_control import DisplayResult as DisplayResult
from bridge.wire.device_media import CrashesListResult as CrashesListResult
from bridge.wire.device_media import LogsEvent as LogsEvent
from bridge.wire.device_media import LogsSubscribeResult as LogsSubscribeResult
from bridge.wire.device_media import RecordingResult as RecordingResult
from bridge.wire.device_network import NetworkState as NetworkState
from bridge.wire.enums import ActionMethod as ActionMethod
from bridge.wire.enums import ActionVerb as ActionVerb
from bridge.wire.enums import AppAction as AppAction
from bridge.wire.enums import DispatchStatus as DispatchStatus
from bridge.wire.enums import ErrorCode as ErrorCode
from bridge.wire.enums import FallbackType as FallbackType
from bridge.wire.enums import FocusChange as FocusChange
from bridge.wire.enums import GestureKind as GestureKind
from bridge.wire.enums import GlobalAction as GlobalAction
from bridge.wire.enums import KeyName as KeyName
from bridge.wire.enums import MatchMode as MatchMode
from bridge.wire.enums import MutationClass as MutationClass
from bridge.wire.enums import NodeRefSource as NodeRefSource
from bridge.wire.enums import Orientation as Orientation
from bridge.wire.enums import Platform as Platform
from bridge.wire.enums import PredicateSource as PredicateSource
from bridge.wire.enums import ProtocolErrorCode as ProtocolErrorCode
from bridge.wire.enums import Role as Role
from bridge.wire.enums import Source as Source
from bridge.wire.enums import Stability as Stability
from bridge.wire.enums import VerificationPolicy as VerificationPolicy
from bridge.wire.enums import VerificationResult as VerificationResult
from bridge.wire.journal import JournalDiffResult as JournalDiffResult
from bridge.wire.journal import JournalScreenResult as JournalScreenResult
from bridge.wire.journal import JournalWhenResult as JournalWhenResult
from bridge.wire.node import SemanticNode as SemanticNode
from bridge.wire.noderef import NodeRef as NodeRef
from bridge.wire.query import SemanticQuery as SemanticQuery
from bridge.wire.query import TextMatch as TextMatch
from bridge.wire.query import Within as Within
from bridge.wire.request_parts import Confirm as Confirm
from bridge.wire.snapshot import ScreenSnapshot as ScreenSnapshot

WIRE_TYPES: tuple[str, ...] = tuple(
    sorted(name for name, value in globals().items() if isinstance(value, type) and name[0] != "_")
)
"""Every name above (``bridge.client`` re-exports them)."""
