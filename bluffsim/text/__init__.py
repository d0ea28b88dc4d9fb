"""The text protocol: every game's rules, views and actions as text, and answers read back.

``protocol_for(game)`` gives a game's ``TextProtocol`` (``bluffsim.text.protocol``); the
per-game wording is a ``GameText`` (``bluffsim.text.base``), refined by a game's optional
``text.py``.  ``agents.text`` builds text agents on it.  See docs/text_protocol.md.
"""

from bluffsim.text.base import GameText
from bluffsim.text.protocol import ILLEGAL, OK, UNPARSEABLE, Parsed, TextProtocol, protocol_for

__all__ = ["ILLEGAL", "OK", "UNPARSEABLE", "GameText", "Parsed", "TextProtocol", "protocol_for"]
