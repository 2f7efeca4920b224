"""While the hub types a secret, no picture of the screen may leave it until a capture shows
where the secret went (pure: the caller says which link and capture numbers it saw).

The secret mask (``bridge.core.secret_mask``) finds a typed secret in the *next* capture; the
screen shows it earlier, as soon as the agent typed it. Pictures that do not come with their
own capture (the live mirror's frames) could show it in between, while the newest capture's
fields do not say which field holds it. Rules:

- ``begin`` before the text is dispatched (after the masker learnt the secret);
- ``end`` when the dispatch ended, however (a reply, a failure, a timeout), with the link it
  went over and the highest capture number received on that link so far;
- ``holding`` is true while a dispatch runs, and after it until the current capture is one
  the agent numbered after the last ``end`` (it was taken after the text was typed, so the
  masker found the secret in it); a capture from another link (the agent reconnected, its
  numbers started again) ends the hold as well.

The caller must not send a picture of the screen while ``holding`` (or must paint all of it).
"""

from __future__ import annotations


class SecretHold:
    def __init__(self) -> None:
        self.typing = 0
        """Dispatches carrying a secret that have not ended."""
        self._until: tuple[object, int] | None = None
        """(link, capture number): holding until a capture of that link numbered above."""
        self.holds = 0
        """How many times a hold began (statistics)."""

    def begin(self) -> None:
        if self.typing == 0 and self._until is None:
            self.holds += 1
        self.typing += 1

    def end(self, link: object, received: int) -> None:
        self.typing = max(0, self.typing - 1)
        if self._until is not None and self._until[0] is link:
            received = max(received, self._until[1])
        self._until = (link, received)

    def holding(self, link: object, capture_no: int | None) -> bool:
        """``link``: the device's link now (None: offline); ``capture_no``: the agent's number
        of the current capture (None: none since the link was made)."""
        if self.typing:
            return True
        until = self._until
        if until is None:
            return False
        if capture_no is None or link is None:
            return True  # nothing yet says where the secret went
        if until[0] is link and capture_no <= until[1]:
            return True
        self._until = None  # taken after the typing (or on a new link: after it too)
        return False


MOTION_HOLD_MAX_MS = 2_000
"""A motion hold ends this long after its action ended even if no stable capture came (a
screen that never settles: pictures then go out masked by the newest capture)."""
SECRET_MEMORY_MS = 600_000
"""A device whose captures showed a secret-holding field with something in it (not an empty
password field) within this long holds pictures while an action moves its screen
(``MotionHold``)."""


class MotionHold:
    """While an action moves the screen of a device that lately showed a secret-holding field,
    no picture leaves until a stable capture taken after the action shows where everything
    went. A field holding a secret that comes back into view (a scroll, BACK, the app opened
    again) is otherwise on screen before any capture says where it is.

    Rules (the caller passes the device clock; nothing here reads one):

    - ``begin`` before a screen-moving command is dispatched, ``end`` when it ended however,
      with the link and the highest capture number received on it so far, and the time;
    - ``holding`` is true while such a command runs, and after it until the current capture
      is numbered above that and the agent said it is stable; at most ``MOTION_HOLD_MAX_MS``
      after the end; a capture from another link ends the hold as well;
    - what the hub cannot see (a person's finger on the phone, the app animating by itself)
      starts no hold.
    """

    def __init__(self) -> None:
        self.running = 0
        self._until: tuple[object, int, int] | None = None
        """(link, capture number, ended at ms): holding until a stable capture numbered above."""
        self.holds = 0

    def begin(self) -> None:
        if self.running == 0 and self._until is None:
            self.holds += 1
        self.running += 1

    def end(self, link: object, received: int, now_ms: int) -> None:
        self.running = max(0, self.running - 1)
        if self._until is not None and self._until[0] is link:
            received = max(received, self._until[1])
        self._until = (link, received, now_ms)

    def holding(self, link: object, capture_no: int | None, stable: bool, now_ms: int) -> bool:
        if self.running:
            return True
        until = self._until
        if until is None:
            return False
        if now_ms - until[2] >= MOTION_HOLD_MAX_MS:
            self._until = None
            return False
        if capture_no is None or link is None:
            return True
        if until[0] is link and (capture_no <= until[1] or not stable):
            return True
        self._until = None
        return False
