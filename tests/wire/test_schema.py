"""protocol/schema/ is generated from the wire types, valid JSON Schema, and describes the
golden fixtures and generated values (the schema other languages read agrees with Python)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from bridge.wire import schema
from bridge.wire.agent_link import AgentToHub, HubToAgent
from bridge.wire.client_protocol import RESULT_TYPES, ClientToHub, HubToClient, ResultMessage
from bridge.wire.codec import encode
from tests.strategies import strategy_for
from tests.wire.golden import (
    PROJECT_SCHEMA_OF_KIND,
    REFERENCE_KINDS,
    Golden,
    message_fixtures,
    reference_fixtures,
)
from tests.wire.schemas import error_lines, project_validator, schema_files

SCHEMAS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_checked_in_schema_has_not_drifted(capsys: pytest.CaptureFixture[str]) -> None:
    assert schema.main(["--check"]) == 0, capsys.readouterr().err


def test_schema_files_are_exactly_the_generated_set() -> None:
    assert {p.name for p in schema_files()} == set(schema.generate())


@pytest.mark.parametrize("path", schema_files(), ids=lambda p: p.name)
def test_generated_schema_is_valid_json_schema(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    assert doc["$id"] == f"mobridge:{path.name}"


@pytest.mark.parametrize("golden", message_fixtures(), ids=str)
def test_message_fixture_validates_against_project_schema(golden: Golden) -> None:
    doc = golden.doc()
    assert error_lines(project_validator(golden.schema), doc) == []
    if golden.request_type:
        body_type = RESULT_TYPES[golden.request_type]
        validator = project_validator("results", body_type.__name__)
        assert error_lines(validator, doc["result"]) == []


@pytest.mark.parametrize(
    ("kind", "path"), reference_fixtures(), ids=[f"{k}/{p.name}" for k, p in reference_fixtures()]
)
def test_reference_fixture_validates_against_project_schema(kind: str, path: Path) -> None:
    validator = project_validator(PROJECT_SCHEMA_OF_KIND[kind])
    assert error_lines(validator, json.loads(path.read_bytes())) == []


@pytest.mark.parametrize(
    ("union", "name"),
    [
        (ClientToHub, "client-to-hub"),
        (HubToClient, "hub-to-client"),
        (AgentToHub, "agent-to-hub"),
        (HubToAgent, "hub-to-agent"),
    ],
)
@SCHEMAS
@given(data=st.data())
def test_generated_messages_validate_against_project_schema(
    union: Any, name: str, data: st.DataObject
) -> None:
    member = data.draw(st.sampled_from([m for m in get_args(union) if m is not ResultMessage]))
    message = data.draw(strategy_for(member))
    assert error_lines(project_validator(name), json.loads(encode(message))) == []


@pytest.mark.parametrize(("kind", "wire_type"), REFERENCE_KINDS.items(), ids=list(REFERENCE_KINDS))
@SCHEMAS
@given(data=st.data())
def test_generated_reference_objects_validate_against_project_schema(
    kind: str, wire_type: type[Any], data: st.DataObject
) -> None:
    value = data.draw(strategy_for(wire_type))
    validator = project_validator(PROJECT_SCHEMA_OF_KIND[kind])
    assert error_lines(validator, json.loads(encode(value))) == []
