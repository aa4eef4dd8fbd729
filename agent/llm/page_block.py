"""The page as the LLM sees it: facts, visible text and the elements, cut to a token budget, inside its fence.

A real page has hundreds of elements; the list is trimmed to a budget so the page cannot crowd out the
persona and the history, dropping the least useful elements first. Experiments compare this very block
across variants to tell whether an LLM twin could see a difference (agent/experiments/visibility.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from agent.llm.choices import ChoiceSet
from agent.llm.facts_block import facts_lines
from agent.llm.fences import fence_close, fence_open, neutralise
from agent.page.candidate import Candidate
from agent.page.observation import Observation
from agent.page.simplifier.slug import slugify

PAGE_OPEN = fence_open("PAGE")
PAGE_CLOSE = fence_close("PAGE")
DEFAULT_CANDIDATE_TOKEN_BUDGET = 6_000
DEFAULT_SECTION_HEAD = 8  # the first N candidates of each page section are kept before others
MAX_PAGE_TEXT_CHARS = 1_200
MAX_CANDIDATE_TEXT_CHARS = 120
MAX_OPTIONS_CHARS = 400
LEAVE_LINE = "leave the site (end the session)"  # the multiple choice's last option (agent/llm/choices.py)
LINE_FIELDS = "name | action | click type | text, when the name does not already say it | price"
# Click types a shopper needs to move forward at all: the first ESSENTIAL_HEAD of each survive trimming first. Not
# all of them: a search page's 48 add-to-cart buttons took a small model's whole list, leaving no product to open.
ESSENTIAL_CLICK_TYPES = frozenset({"search", "purchase", "product_option", "quantity"})
ESSENTIAL_HEAD = 3

PAGE_FREE_TEXT = (
    "No page is available this time. Predict the next action from who you are and what you have done so far. "
    "Name the element by the site's standard names, for example nav_bar.search_input, nav_bar.search_button, "
    "search_results.<product title slug>.product_name, product_options.<dimension>.button_list.<value slug>, "
    "buybox.purchase_form.add_to_cart, buybox.purchase_form.buy_now, nav_bar.cart_button, check_out "
    "(a slug is the lower-case text with every run of other characters turned into _)."
)


def page_block(
    observation: Observation,
    candidate_token_budget: int = DEFAULT_CANDIDATE_TOKEN_BUDGET,
    ranking_query: str | None = None,
    *,
    shown: tuple[list[Candidate], bool] | None = None,
    choices: ChoiceSet | None = None,
) -> str:
    """The page inside the delimiters, or the page-free instruction when there is no page. With a ranking query
    (the task and the last steps), elements that overflow the budget are dropped least relevant first.

    `shown` is choose_candidates' answer when the caller already has it; with `choices` (a grounding strategy
    other than names, agent/llm/choices.py) the elements are numbered, or only counted when the numbers are
    drawn on the screenshot instead."""
    if observation.empty:
        return PAGE_FREE_TEXT
    lines = [PAGE_OPEN]
    if observation.url:
        lines.append(f"URL: {neutralise(observation.url)}")
    lines.append(f"Page type: {observation.page_type}")
    if observation.title:
        lines.append(f"Title: {neutralise(observation.title)}")
    facts = facts_lines(observation.facts)
    if facts:
        lines.append("What the page shows (facts read from it):")
        lines += [neutralise(line) for line in facts]
    if observation.text:
        lines.append(f"Visible text (start): {neutralise(observation.text)[:MAX_PAGE_TEXT_CHARS]}")
    kept, ranked = shown if shown is not None else choose_candidates(observation, candidate_token_budget, ranking_query)
    if choices is None:
        lines.append(f"Elements you can act on ({LINE_FIELDS}):")
        lines += [candidate_line(c) for c in kept]
    elif choices.listed:
        lines.append(f"Elements you can act on, numbered (choice | {LINE_FIELDS}):")
        lines += [f"[{number}] {candidate_line(c)}" for number, c in choices.numbers.items()]
        lines.append(f"[{choices.leave}] {LEAVE_LINE}")
    else:
        lines.append(
            f"The elements you can act on are marked on the screenshot with numbered boxes "
            f"({len(choices.numbers)} of them, numbered {choices.valid_text()}); option {choices.leave} is to "
            f"{LEAVE_LINE}."
        )
    hidden = len(observation.candidates) - len(kept)
    if hidden:
        lines.append(f"({hidden} more elements not shown{', the least relevant to the task' if ranked else ''})")
    lines.append(PAGE_CLOSE)
    return "\n".join(lines)


def candidate_line(candidate: Candidate) -> str:
    """name | action | click type | text | price. The text says only what the name and the price do not: a
    listing's title is its name's slug, a button's price is in the price column (on a CPU every token of the prompt
    is read, and a search page's titles and prices were each listed twice per element)."""
    price = f"${candidate.price:,.2f}" if candidate.price is not None else ""
    if candidate.kind != "input" and candidate.takes_text:  # a drop-down: its options are what can be typed
        verb, text, limit = (
            "select",
            "options: " + "; ".join(neutralise(o) for o in candidate.options),
            MAX_OPTIONS_CHARS,
        )
    else:
        verb, text, limit = (
            ("input" if candidate.kind == "input" else "click"),
            _untold_text(neutralise(candidate.text), candidate.name, price),
            MAX_CANDIDATE_TEXT_CHARS,
        )
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{neutralise(candidate.name)} | {verb} | {candidate.click_type} | {text} | {price}".rstrip(" |")


def _untold_text(text: str, name: str, price: str) -> str:
    """The element's text less what its line says already: the price column's price, and all of it when it is
    the name's own words (the name is the text's slug, agent/page/simplifier/slug.py)."""
    if price:
        text = " ".join(text.replace(price, " ").split())
    slug = slugify(text)
    if slug and re.search(rf"(?:^|[._]){re.escape(slug)}(?:$|[._])", name):
        return ""
    return text


# --- trimming the page to a token budget -----------------------------------------------------------


def choose_candidates(
    observation: Observation, token_budget: int, ranking_query: str | None
) -> tuple[list[Candidate], bool]:
    """The elements shown, in document order, and whether they were chosen by relevance to the task. All of
    them when they fit; else by rank against the query (agent/candidate_ranking.py) when there is one, else by
    the section-by-section trimming below."""
    candidates = observation.candidates
    costs = [line_cost(c) for c in candidates]
    if sum(costs) <= token_budget:
        return list(candidates), False
    if not ranking_query:
        return trim_candidates(candidates, token_budget), False
    from agent.candidate_ranking import rank_candidates

    chosen: list[int] = []
    used = 0
    for index in rank_candidates(observation, ranking_query):
        if used + costs[index] > token_budget:
            continue
        chosen.append(index)
        used += costs[index]
    return [candidates[i] for i in sorted(chosen)], True


def line_cost(candidate: Candidate) -> int:
    """What an element's line costs the budget: its estimated tokens and the newline."""
    return estimate_tokens(candidate_line(candidate)) + 1


def estimate_tokens(text: str) -> int:
    """Chars/4: good enough to trim by, and needs no tokenizer (nothing to download)."""
    return (len(text) + 3) // 4


def section_of(name: str) -> str:
    return name.split(".", 1)[0]


def trim_candidates(
    candidates: Sequence[Candidate],
    token_budget: int = DEFAULT_CANDIDATE_TOKEN_BUDGET,
    section_head: int = DEFAULT_SECTION_HEAD,
) -> list[Candidate]:
    """The candidates that fit the budget, in document order, dropping the least useful first.

    Kept first: inputs and the first ESSENTIAL_HEAD search / purchase / option / quantity elements; then the
    first `section_head` entries of each page section (nav_bar, search_results, refinements ...); then the rest,
    shallowest first across sections, so every section keeps its top entries before any keeps its tail.

    An entry is an element, or in a section of groups (section.group.element: a listing's products, a filter's
    values) one group, of which only the first element of each click type counts before the tail: a product is
    its link, its reviews and its add-to-cart, and its image, title and price links (the same click) come last.
    """
    entry_rank: list[int] = []
    rank_in_type: list[int] = []
    repeat: list[bool] = []  # the group already has an element of this click type
    entries: dict[str, dict[str, int]] = {}  # section -> entry -> its rank in the section
    seen_types: Counter[str] = Counter()
    seen_in_group: set[tuple[str, str]] = set()
    for candidate in candidates:
        parts = candidate.name.split(".")
        section, entry = parts[0], ".".join(parts[:2]) if len(parts) > 2 else candidate.name
        ranks = entries.setdefault(section, {})
        entry_rank.append(ranks.setdefault(entry, len(ranks)))
        rank_in_type.append(seen_types[candidate.click_type])
        seen_types[candidate.click_type] += 1
        repeat.append(len(parts) > 2 and (entry, candidate.click_type) in seen_in_group)
        seen_in_group.add((entry, candidate.click_type))

    def priority(index: int) -> tuple[int, int, int]:
        candidate = candidates[index]
        if candidate.kind == "input" or (
            candidate.click_type in ESSENTIAL_CLICK_TYPES and rank_in_type[index] < ESSENTIAL_HEAD
        ):
            return (0, 0, index)
        if repeat[index]:
            return (3, entry_rank[index], index)
        if entry_rank[index] < section_head:
            return (1, 0, index)
        return (2, entry_rank[index], index)

    chosen: set[int] = set()
    used = 0
    for index in sorted(range(len(candidates)), key=priority):
        cost = line_cost(candidates[index])
        if used + cost > token_budget:
            continue  # a shorter, less useful line may still fit
        chosen.add(index)
        used += cost
    return [candidates[i] for i in sorted(chosen)]
