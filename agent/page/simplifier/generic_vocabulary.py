"""The vocabulary of the generic fallback (generic.py): which roles are clicked or typed into, which input types
take text, which tags and roles are landmarks, sections, headings or inline text, and how long a name part may be.

Kept apart from the walk that uses it so the lists can be read and extended without reading the walk.
"""

from __future__ import annotations

SLUG_MAX = 40
CLICKABLE_ROLES = {
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "treeitem",
    "slider",
    "spinbutton",
}
TYPING_ROLES = {"textbox", "searchbox", "combobox"}
TEXT_INPUT_TYPES = {
    "text",
    "search",
    "email",
    "tel",
    "number",
    "password",
    "url",
    "date",
    "datetime-local",
    "month",
    "week",
    "time",
    "",
}
LANDMARK_TAGS = {
    "header": "header",
    "nav": "nav",
    "main": "main",
    "aside": "sidebar",
    "footer": "footer",
    "form": "form",
    "dialog": "dialog",
}
LANDMARK_ROLES = {
    "banner": "header",
    "navigation": "nav",
    "main": "main",
    "complementary": "sidebar",
    "contentinfo": "footer",
    "search": "search",
    "dialog": "dialog",
    "form": "form",
}
SECTION_TAGS = {"section", "article", "fieldset"}
HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
INLINE_TAGS = {
    "span",
    "b",
    "strong",
    "em",
    "i",
    "small",
    "label",
    "sup",
    "sub",
    "abbr",
    "time",
    "data",
    "mark",
    "s",
    "del",
    "ins",
    "u",
    "font",
    "bdi",
    "bdo",
    "q",
    "cite",
    "code",
    "kbd",
    "var",
    "big",
    "wbr",
    "br",
    "img",
    "picture",
    "source",
    "meter",
    "progress",
    "output",
}
STRUCK_TAGS = frozenset({"s", "del"})
