"""A W3C WebDriver endpoint with Appium's extensions (``mobridge serve --webdriver``).

Appium clients (Python, Java, WebdriverIO, ...) drive the shared phone through it. It is a
client of the hub, like the MCP server: each WebDriver session opens its own hub session
with the caller's token, holds the device's lease for its lifetime, and every command is an
ordinary hub request (resolved, verified, journaled, seen by every watcher, refused while
another client holds the lease).

Sans-I/O parts (no sockets, clocks or tasks): ``http`` (request parsing, response bytes),
``routes`` (method + path -> command), ``capabilities``, ``page_source`` (Appium-shaped XML
from a semantic snapshot), ``locators`` with ``uiselector``, ``ios_predicate`` and
``class_chain``, ``pointer_actions`` (W3C actions -> gestures), ``errors``, ``tokens``. I/O
parts: ``session`` (one WebDriver session over one hub connection), ``calls`` (what handlers
share), ``commands`` (finding, element actions, the screen, W3C actions), ``element_reads``,
``mobile`` (``mobile:`` commands and Appium's legacy endpoints) and ``server`` (the HTTP
listener and the session table).
"""
