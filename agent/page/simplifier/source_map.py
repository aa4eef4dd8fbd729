"""Which raw element each simplified name came from, so a live browser can act on the element a twin names.

The caller marks every raw element with an attribute (e.g. `data-twinsim-node="s3-57"`, set in the live
DOM); while simplifying, each claimed name records that attribute's value. Without an attribute nothing
is recorded and simplification behaves exactly as before.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode


class SourceMap:
    """name -> marker value of the raw element the name was given to."""

    def __init__(self, attribute: str | None = None) -> None:
        self.attribute = attribute
        self.by_name: dict[str, str] = {}

    def record(self, name: str, node: LexborNode) -> None:
        if self.attribute and (value := node.attributes.get(self.attribute)):
            self.by_name[name] = value

    def forget(self, name: str) -> None:
        self.by_name.pop(name, None)
