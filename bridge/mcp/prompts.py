"""MCP prompts that teach an agent the loop: look, act by target, read the effect, wait.

Each prompt is a fixed text with at most one argument put in verbatim (bounded); nothing
here talks to the hub. ``get_prompt`` answers ``prompts/get`` (None: no such prompt).
"""

from __future__ import annotations

from mcp import types

MAX_ARGUMENT = 500

_LOOP = """You drive a phone through the mobridge tools. The loop:
1. Look once: call screen (pass goal: "<what you want>" to get the matching elements first).
   Each line is an element: handle (e7), role, "name", =value, hint, #id, flags.
2. Act by target: act {{target: "e7"}} or act {{target: "Sign in"}} (plain text matches the
   visible text, label or input hint). SET_TEXT takes text, or valueRef: "secret://<name>"
   for a password (you never see it).
3. Read the effect: every action answers with one summary line and the new screen. A new
   screen comes whole; on the same screen only changed lines come (+ new or changed,
   - gone). Do not call screen again just to look: the answer already shows it.
4. Wait for a condition rather than polling: wait {{condition: {{kind: "screen", name:
   "home"}}}} or {{kind: "present", query: "Welcome"}}.
5. When a call is refused, read its next: line. Several matches come back as candidate
   handles: pick one. A person or script may take the phone from you: stop and say so.
Task: {task}"""

_FORM = """Fill a form on the phone with as few calls as possible. Do not call screen between
steps: each act answers with the screen after it. For each field: act {{action: "SET_TEXT",
target: "<the field's hint or label>", text: "<value>"}} (a secret: valueRef instead of
text). Submit with act {{target: "<the button's text>", expect: {{kind: "screen", name:
"<next screen>"}}}} so the answer says whether it worked.
Form: {task}"""

_WAIT = """Wait for something on the phone without polling: call wait with a condition, e.g.
{{kind: "present", query: "<text>"}}, {{kind: "absent", query: "Loading"}}, {{kind: "screen",
name: "<screen>"}}, {{kind: "state", query: "Wi-Fi", state: {{checked: true}}}} or
{{kind: "stable", forMs: 500}}, with timeoutMs. A timeout is an answer (met: false) with
evidence, not an error: read it and decide.
Condition: {task}"""

PROMPTS: tuple[types.Prompt, ...] = (
    types.Prompt(
        name="drive_phone",
        description="The loop: look, act by target, read the effect, wait",
        arguments=[types.PromptArgument(name="task", description="what to do", required=True)],
    ),
    types.Prompt(
        name="fill_form",
        description="Fill and submit a form in a few calls, secrets by reference",
        arguments=[
            types.PromptArgument(name="task", description="the fields and values", required=True)
        ],
    ),
    types.Prompt(
        name="wait_for",
        description="Wait for a condition instead of polling the screen",
        arguments=[
            types.PromptArgument(name="task", description="what to wait for", required=True)
        ],
    ),
)
_TEXTS = {"drive_phone": _LOOP, "fill_form": _FORM, "wait_for": _WAIT}


def get_prompt(name: str, arguments: dict[str, str]) -> types.GetPromptResult | None:
    template = _TEXTS.get(name)
    if template is None:
        return None
    task = str(arguments.get("task", ""))[:MAX_ARGUMENT] or "(none given)"
    text = template.format(task=task)
    described = next(p.description for p in PROMPTS if p.name == name)
    return types.GetPromptResult(
        description=described,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )
