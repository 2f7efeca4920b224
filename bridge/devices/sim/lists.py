"""The recycling list screens of the demo app: ``list`` (200 items) and ``search``.

Rows are recycled views: row ``k`` on screen keeps its key ``<list>.row<k>`` (so its handle)
whatever item it shows; ``item`` / ``content`` name the item, so a row's index on screen is
never its identity. Search results appear ``SEARCH_DELAY_S`` after the query last changed
(the device model decides when; builders only read ``SceneInput.search_ready``).
"""

from __future__ import annotations

from bridge.devices.sim.layout import (
    Column,
    Frame,
    SceneInput,
    ScreenState,
    heading_text,
    text_input,
    view_key,
)
from bridge.devices.sim.views import Box, Kind, View

LIST_ITEMS = 200
LIST_PAGE = 10
SEARCH_PAGE = 12
SEARCH_CORPUS: tuple[str, ...] = (
    "Apple",
    "Apricot",
    "Banana",
    "Blueberry",
    "Cherry",
    "Grape",
    "Lemon",
    "Mango",
    "Orange",
    "Papaya",
    "Peach",
    "Pear",
    "Pineapple",
    "Plum",
    "Strawberry",
    "Amsterdam",
    "Berlin",
    "Cairo",
    "Delhi",
    "Lagos",
    "Lima",
    "Lisbon",
    "London",
    "Madrid",
    "Nairobi",
    "Oslo",
    "Paris",
    "Rome",
    "Seoul",
    "Tokyo",
)


def search_matches(query: str) -> list[str]:
    needle = query.strip().casefold()
    if not needle:
        return []
    return [name for name in SEARCH_CORPUS if needle in name.casefold()]


def list_screen(state: ScreenState, frame: Frame) -> list[View]:
    col = Column(frame)
    heading = heading_text(state, col, "List")
    selection_box = col.take(80)
    views = [heading]
    if state.selected is not None:
        views.append(
            View(
                key=view_key(state, "selection"),
                kind=Kind.TEXT,
                bounds=selection_box,
                text=f"Selected: {state.selected}",
                ident="selection",
            )
        )
    offset = state.offsets.get("list", 0)
    area = col.rest()
    views.append(
        recycler(
            state,
            "list",
            area,
            LIST_PAGE,
            [f"Item {i + 1}" for i in range(LIST_ITEMS)],
            offset,
            "row",
            "select",
        )
    )
    return views


def recycler(
    state: ScreenState,
    local: str,
    area: Box,
    page: int,
    items: list[str],
    offset: int,
    row_ident: str,
    intent: str,
) -> View:
    left, top, right, bottom = area
    row_h = (bottom - top) // page
    rows: list[View] = []
    for slot in range(page):
        index = offset + slot
        if index >= len(items):
            break
        y = top + slot * row_h
        row_box = (left, y, right, y + row_h)
        title = View(
            key=view_key(state, f"{local}.row{slot}.title"),
            kind=Kind.TEXT,
            bounds=(left + 48, y + 24, right - 48, y + row_h - 24),
            text=items[index],
            ident=f"{row_ident}_title",
            content=f"{local}:{index}",
        )
        rows.append(
            View(
                key=view_key(state, f"{local}.row{slot}"),
                kind=Kind.ROW,
                bounds=row_box,
                ident=row_ident,
                item=index,
                content=f"{local}:{index}",
                on_tap=f"{intent}:{items[index]}",
                children=[title],
            )
        )
    return View(
        key=view_key(state, local),
        kind=Kind.LIST,
        bounds=area,
        ident=local,
        rows=len(items),
        can_scroll_forward=offset + page < len(items),
        can_scroll_backward=offset > 0,
        children=rows,
    )


def search_screen(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    col = Column(frame)
    views = [
        heading_text(state, col, "Find anything"),
        text_input(state, col, "query", "Search", password=False),
    ]
    query = state.fields.get("query", "")
    status_box = col.take(80)
    if not query.strip():
        views.append(
            View(
                key=view_key(state, "status"),
                kind=Kind.TEXT,
                bounds=status_box,
                text="Type to search",
            )
        )
        return views
    if not inp.search_ready:
        views.append(
            View(
                key=view_key(state, "progress"),
                kind=Kind.PROGRESS,
                bounds=status_box,
                ident="progress",
            )
        )
        return views
    matches = search_matches(query)
    if not matches:
        views.append(
            View(
                key=view_key(state, "status"), kind=Kind.TEXT, bounds=status_box, text="No results"
            )
        )
        return views
    offset = min(state.offsets.get("results", 0), max(0, len(matches) - SEARCH_PAGE))
    views.append(
        recycler(state, "results", col.rest(), SEARCH_PAGE, matches, offset, "result", "pick")
    )
    return views
