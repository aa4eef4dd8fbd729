"""The recipe engine: declarative, CSS-selector rules that turn a raw page into OPeRA-style HTML.

A recipe is data (see `amazon_product_recipe.py`): a tree of `Rule`s, each with fallback selectors (markup
changes over the years, so several per element), a name template, and how to emit the element. This
is the shape of the parser OPeRA used to record its pages (Wang et al. 2025, arXiv 2506.05606,
CC-BY-4.0; the UXAgent recipe parser): nested rules whose names join with dots, text-derived name
parts, and only the key elements kept.

Name templates: literal dotted text plus placeholders in braces, resolved to slugs:
`{text}` the rule's text, `{label}` the accessible label, `{attr:NAME}` an attribute,
`{id}` group 1 of `Rule.id_pattern` on the element id. `{a|b}` takes the first non-empty one.
A name that resolves empty leaves the element unnamed (its children name from the parent).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Literal

from selectolax.lexbor import LexborHTMLParser, LexborNode

from agent.page.simplifier.dom import (
    MAX_TEXT,
    attr,
    fold,
    join_price,
    label_of,
    text_of,
)
from agent.page.simplifier.slug import UniqueNames, join_name, slugify
from agent.page.simplifier.source_map import SourceMap

Kind = Literal["container", "text", "click", "input", "select", "image"]
PageKind = Literal["search_results", "product", "cart", "checkout", "home", "other"]

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_TEXT_INPUT_TYPES = {"text", "search", "email", "tel", "number", "password", "url", ""}
_DEFAULT_TAGS = {"a": "a", "button": "button", "input": "button", "li": "li", "option": "li"}


@dataclass(frozen=True, slots=True)
class Rule:
    """One element (or list of elements) to keep. Selectors are tried in order; the first that matches wins."""

    select: tuple[str, ...]
    name: str | None = None  # name template relative to the parent's name
    kind: Kind = "container"
    tag: str | None = None  # emitted tag; default depends on kind and source tag
    many: bool = False  # every match, or only the first
    limit: int | None = None
    text_from: tuple[str, ...] = ()  # text sources: CSS inside the element, "@self", "@label", "@attr:NAME", "=literal"
    name_from: tuple[str, ...] = ()  # sources for {text} in the name when they differ from the shown text
    require_text: bool = False  # skip matches without text (always so for kind "text")
    text_default: str = ""
    text_format: str = "{}"
    text_limit: int | None = MAX_TEXT
    price: bool = False  # glue split price pieces ("$ 6 . 99" -> "$6.99")
    strip: str | None = None  # regex removed from texts and labels ("Click to select ")
    id_pattern: str | None = None  # for {id}
    css_class: str | None = None
    role: str | None = None
    keep_attrs: tuple[str, ...] = ()  # source attributes copied to the output (aria-label, title, ...)
    caption_from: tuple[str, ...] = ()  # containers: texts shown at the top (group titles, current choice)
    keep_options: bool = True  # selects: emit their <option> texts
    exclude: tuple[str, ...] = ()  # skip matches containing any of these
    page_scope: bool = False  # search the whole page instead of inside the parent match
    page_fallback: tuple[str, ...] = ()  # when nothing matches inside the parent: these, on the whole page
    virtual_if_missing: bool = False  # containers: when nothing matches, wrap the parent's scope instead
    slug_max: int | None = None
    children: tuple[Rule, ...] = ()


@dataclass(frozen=True, slots=True)
class Recipe:
    """Rules for one page type of one site, and how to recognise that page."""

    name: str
    page_type: PageKind
    url_pattern: str  # regex searched in the URL
    landmarks: tuple[str, ...]  # the page qualifies if any of these matches
    rules: tuple[Rule, ...]
    title_from: tuple[str, ...] = ("title",)
    generic_rest: bool = False  # after the rules, simplify the rest of the page with the generic fallback

    def matches_url(self, url: str | None) -> bool:
        return url is not None and url != "" and re.search(self.url_pattern, url, re.IGNORECASE) is not None

    def has_landmark(self, tree: LexborHTMLParser) -> bool:
        return any(tree.css_first(selector) is not None for selector in self.landmarks)


def detect_recipe(tree: LexborHTMLParser, url: str | None, recipes: tuple[Recipe, ...]) -> Recipe | None:
    """URL first (verified by a landmark), then landmarks alone; None means the generic fallback."""
    for recipe in recipes:
        if recipe.matches_url(url) and recipe.has_landmark(tree):
            return recipe
    for recipe in recipes:
        if recipe.has_landmark(tree):
            return recipe
    return None


@dataclass
class RecipeRun:
    """Output of applying a recipe: the body HTML, the names in document order, the nodes consumed."""

    parts: list[str] = field(default_factory=list)
    names: UniqueNames = field(default_factory=UniqueNames)
    used: set[int] = field(default_factory=set)
    roots: list[LexborNode] = field(default_factory=list)  # nodes matched by top-level rules
    sources: SourceMap = field(default_factory=SourceMap)  # name -> marker of its raw element (live browsing)


def apply_recipe(tree: LexborHTMLParser, recipe: Recipe, run: RecipeRun | None = None) -> RecipeRun:
    """Apply every rule of `recipe` to the page body, in order."""
    run = run or RecipeRun()
    body = tree.body or tree.root
    if body is None:
        return run
    for rule in recipe.rules:
        run.roots.extend(_apply(rule, body, "", tree, run))
    return run


def page_title(tree: LexborHTMLParser, recipe: Recipe) -> str:
    for selector in recipe.title_from:
        node = tree.css_first(selector)
        if node is not None and (text := text_of(node)):
            return text
    return ""


# --- engine -------------------------------------------------------------------------------------


def _apply(rule: Rule, scope: LexborNode, prefix: str, tree: LexborHTMLParser, run: RecipeRun) -> list[LexborNode]:
    nodes = _select(rule, scope, tree, run)
    if not nodes and rule.kind == "container" and rule.virtual_if_missing:
        _emit(rule, scope, prefix, tree, run)
        return []
    for node in nodes:
        _emit(rule, node, prefix, tree, run)
    return nodes


def _select(rule: Rule, scope: LexborNode, tree: LexborHTMLParser, run: RecipeRun) -> list[LexborNode]:
    page = tree.body or tree.root or scope  # a parsed document always has a root
    found = _first_match(rule, rule.select, page if rule.page_scope else scope, scope, tree, run)
    if not found and rule.page_fallback:
        found = _first_match(rule, rule.page_fallback, page, scope, tree, run)
    return found


def _first_match(
    rule: Rule, selectors: tuple[str, ...], root: LexborNode, scope: LexborNode, tree: LexborHTMLParser, run: RecipeRun
) -> list[LexborNode]:
    for selector in selectors:
        found = [
            node
            for node in root.css(selector)
            if node.mem_id != scope.mem_id
            and node.mem_id not in run.used
            and not any(node.css_first(excluded) is not None for excluded in rule.exclude)
        ]
        if rule.kind == "text" or rule.require_text:
            found = [node for node in found if _text(rule, node, tree)]
        if found:
            if not rule.many:
                return found[:1]
            return found[: rule.limit] if rule.limit else found
    return []


def _emit(rule: Rule, node: LexborNode, prefix: str, tree: LexborHTMLParser, run: RecipeRun) -> None:
    template_name = _resolve_name(rule, node, tree)
    name = run.names.claim(join_name(prefix, template_name)) if template_name else None
    if name:
        run.sources.record(name, node)
    if rule.kind != "container":
        run.used.add(node.mem_id)
    attrs = _attributes(rule, node, name)
    if rule.kind == "container":
        _emit_container(rule, node, prefix, name, attrs, tree, run)
        return
    text = _text(rule, node, tree)
    shown = rule.text_format.format(text) if text else ""
    if rule.kind == "input":
        _emit_input(node, attrs, text, run)
    elif rule.kind == "select":
        _emit_select(rule, node, attrs, run)
    elif rule.kind == "image":
        if name:
            run.parts.append(_open("img", [*attrs, ("alt", text)]))
    elif name or shown:  # text and click
        tag = rule.tag or (_DEFAULT_TAGS.get(node.tag or "", "span") if rule.kind == "click" else "span")
        run.parts.append(f"{_open(tag, attrs)}{html.escape(shown, quote=False)}</{tag}>")


def _emit_container(
    rule: Rule,
    node: LexborNode,
    prefix: str,
    name: str | None,
    attrs: list[tuple[str, str]],
    tree: LexborHTMLParser,
    run: RecipeRun,
) -> None:
    tag = rule.tag or "div"
    start = len(run.parts)
    run.parts.append(_open(tag, attrs))
    captions: list[str] = []
    for source in rule.caption_from:
        if (text := _from_source(rule, source, node, tree)) and text not in captions:
            captions.append(text)
    if len(captions) == 1:
        run.parts.append(f"<span>{html.escape(captions[0], quote=False)}</span>")
    elif captions:
        run.parts.append("<div>" + "".join(f"<span>{html.escape(c, quote=False)}</span>" for c in captions) + "</div>")
    for child in rule.children:
        _apply(child, node, name or prefix, tree, run)
    if len(run.parts) == start + 1:
        del run.parts[start:]  # nothing inside: leave no empty shell and no name for it
        if name:
            run.names.release_last(name)
            run.sources.forget(name)
        return
    run.parts.append(f"</{tag}>")


def _emit_input(node: LexborNode, attrs: list[tuple[str, str]], text: str, run: RecipeRun) -> None:
    if node.tag == "textarea":
        run.parts.append(f"{_open('textarea', attrs)}{html.escape(text_of(node), quote=False)}</textarea>")
        return
    kind = (node.attributes.get("type") or "text").lower()
    extra = [("type", kind if kind in _TEXT_INPUT_TYPES and kind else "text"), ("value", attr(node, "value"))]
    for key in ("placeholder", "aria-label"):
        if (value := attr(node, key)) and all(k != key for k, _ in attrs):
            extra.append((key, value))
    run.parts.append(_open("input", attrs + extra))


def _emit_select(rule: Rule, node: LexborNode, attrs: list[tuple[str, str]], run: RecipeRun) -> None:
    options = []
    if rule.keep_options:
        for option in node.css("option")[:60]:
            label = text_of(option, 80)
            if label:
                selected = ' selected=""' if "selected" in option.attributes else ""
                options.append(f"<option{selected}>{html.escape(label, quote=False)}</option>")
    run.parts.append(f"{_open('select', attrs)}{''.join(options)}</select>")


def _attributes(rule: Rule, node: LexborNode, name: str | None) -> list[tuple[str, str]]:
    attrs: list[tuple[str, str]] = []
    if name:
        attrs.append(("name", name))
    if rule.css_class:
        attrs.append(("class", rule.css_class))
    if rule.role:
        attrs.append(("role", rule.role))
    for key in rule.keep_attrs:
        if value := attr(node, key):
            attrs.append((key, value))
    if node.tag == "input" and (node.attributes.get("type") or "").lower() in ("checkbox", "radio"):
        attrs.append(("aria-checked", "true" if "checked" in node.attributes else "false"))
    elif node.tag == "option" and "selected" in node.attributes:
        attrs.append(("aria-selected", "true"))
    return attrs


def _open(tag: str, attrs: list[tuple[str, str]]) -> str:
    rendered = "".join(f' {key}="{html.escape(value)}"' for key, value in attrs)
    return f"<{tag}{rendered}>"


def _text(rule: Rule, node: LexborNode, tree: LexborHTMLParser) -> str:
    sources = rule.text_from or ("@self", "@label")
    for source in sources:
        if text := _from_source(rule, source, node, tree):
            return text
    return rule.text_default


def _from_source(rule: Rule, source: str, node: LexborNode, tree: LexborHTMLParser) -> str:
    if source.startswith("="):
        return source[1:]
    if source == "@self":
        text = text_of(node, rule.text_limit)
    elif source == "@label":
        text = label_of(node, tree)
    elif source.startswith("@attr:"):
        text = attr(node, source[len("@attr:") :])
    else:
        text = ""
        for inner in node.css(source):
            if text := text_of(inner, rule.text_limit):
                break
    if text and rule.strip:
        text = fold(re.sub(rule.strip, " ", text))
    if text and rule.price:
        text = join_price(text)
    return text


def _resolve_name(rule: Rule, node: LexborNode, tree: LexborHTMLParser) -> str | None:
    if rule.name is None:
        return None
    empty = False

    def replace(match: re.Match[str]) -> str:
        nonlocal empty
        for option in match.group(1).split("|"):
            if slug := slugify(_placeholder(rule, option.strip(), node, tree), rule.slug_max):
                return slug
        empty = True
        return ""

    resolved = _PLACEHOLDER.sub(replace, rule.name)
    return None if empty or not resolved else resolved


def _placeholder(rule: Rule, option: str, node: LexborNode, tree: LexborHTMLParser) -> str:
    if option == "text":
        if rule.name_from:
            return next((t for source in rule.name_from if (t := _from_source(rule, source, node, tree))), "")
        return _text(rule, node, tree)
    if option == "label":
        label = label_of(node, tree)
        return fold(re.sub(rule.strip, " ", label)) if label and rule.strip else label
    if option.startswith("attr:"):
        return attr(node, option[len("attr:") :])
    if option == "id" and rule.id_pattern:
        found = re.search(rule.id_pattern, node.attributes.get("id") or "")
        return found.group(1) if found else ""
    raise ValueError(f"unknown name placeholder {{{option}}} in rule {rule.select!r}")
