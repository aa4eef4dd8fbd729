"""Interviews and transcripts as memories: third-person summaries rewritten in the first person ("The
participant prefers ..." -> "I prefer ..."), split into passages of a few sentences, and transcript turns
packed into question-and-answer passages, so each embedded passage says one thing in the person's own voice.
Formats follow OPeRA (Wang et al. 2025, arXiv 2506.05606, CC-BY-4.0).
"""

from __future__ import annotations

import re

PASSAGE_MAX_CHARS = 600  # interview-summary passages
TRANSCRIPT_TARGET_CHARS = 600  # transcript passages are packed to at least this ...
TRANSCRIPT_MAX_CHARS = 800  # ... and at most this, when the answers allow
QUESTION_CONTEXT_CHARS = 200


# ---- interview summary ---------------------------------------------------------------------------

_BE = {"is": "am", "was": "was", "has": "have", "does": "do", "goes": "go"}
_ADVERBS = {
    "also",
    "often",
    "usually",
    "typically",
    "generally",
    "mostly",
    "rarely",
    "always",
    "sometimes",
    "frequently",
    "occasionally",
    "primarily",
    "mainly",
    "still",
    "really",
    "then",
    "tends",
    "never",
    "particularly",
    "especially",
    "actively",
    "regularly",
    "strongly",
    "clearly",
    "additionally",
}
_VERB_EXCEPTIONS = {"focuses": "focus"}


def _first_person_verb(verb: str) -> str:
    """'lives' -> 'live', 'prioritizes' -> 'prioritize', 'identifies' -> 'identify', 'is' -> 'am'."""
    lower = verb.lower()
    if lower in _BE:
        return _BE[lower]
    if lower in _VERB_EXCEPTIONS:
        return _VERB_EXCEPTIONS[lower]
    if len(lower) > 3 and lower.endswith("ies"):
        return verb[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|zz)es$", lower):
        return verb[:-2]
    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 2:
        return verb[:-1]
    return verb


def _participant_to_me(match: re.Match[str]) -> str:
    adverb, verb = match.group("adverb") or "", match.group("verb")
    if adverb.strip().lower() == "tends":  # "[Participant] tends to buy" -> "I tend to buy"
        return f"I tend {verb}"
    return f"I {adverb}{_first_person_verb(verb)}"


# The subject ("[Participant]", or he/she, which some summaries use), an optional adverb, then the verb.
_PARTICIPANT_VERB_RE = re.compile(
    r"(?:\[Participant\]|\bhe\b|\bshe\b)\s+(?P<adverb>(?:" + "|".join(sorted(_ADVERBS)) + r")\s+)?(?P<verb>[A-Za-z]+)",
    re.IGNORECASE,
)
# Verbs that, after "and" / "but" in a sentence about the participant, are theirs (a closed list: nouns
# such as "reviews" or "bags" must not lose their s).
_COORDINATED_VERBS = (
    "is",
    "has",
    "does",
    "goes",
    "cares",
    "works",
    "spends",
    "disregards",
    "ignores",
    "prefers",
    "enjoys",
    "likes",
    "tends",
    "values",
    "relies",
    "focuses",
    "considers",
    "avoids",
    "pays",
    "finds",
    "feels",
    "wants",
    "needs",
    "shops",
    "compares",
    "trusts",
    "buys",
    "reads",
    "checks",
    "seeks",
    "lives",
    "studies",
    "appears",
    "seems",
    "prioritizes",
    "emphasizes",
    "resides",
    "heads",
    "walks",
    "returns",
    "attends",
    "continues",
    "begins",
    "starts",
    "makes",
    "takes",
    "gets",
    "teaches",
    "travels",
    "visits",
    "orders",
    "browses",
    "searches",
)
_COORDINATED_RE = re.compile(
    r"(\b(?:and|but|or|then)\s+(?:(?:also|often|usually|sometimes|then)\s+)?)(" + "|".join(_COORDINATED_VERBS) + r")\b"
)
# "they" is the participant in these summaries, except after "if"/"unless"/"whether"/"once" (usually things).
_NOT_AFTER = r"(?<!\bif )(?<!\bunless )(?<!\bwhether )(?<!\bonce )"
_THEY_RE = {
    re.compile(_NOT_AFTER + r"\b[Tt]hey are\b"): "I am",
    re.compile(_NOT_AFTER + r"\b[Tt]hey were\b"): "I was",
    re.compile(_NOT_AFTER + r"\b[Tt]hey're\b"): "I'm",
    re.compile(_NOT_AFTER + r"\b[Tt]hey\b"): "I",
    re.compile(r"\b(?:[Hh]is|[Hh]er)\b"): "my",  # some summaries say he/she; "her" as object is rare here
    re.compile(r"\b(?:[Hh]imself|[Hh]erself)\b"): "myself",
    re.compile(r"\b[Tt]heir\b"): "my",
    re.compile(r"\b[Tt]hemselves\b"): "myself",
}


def _coordinated_verbs(sentence: str) -> str:
    """In a sentence whose subject became 'I': '... and cares about' -> '... and care about'."""
    return _COORDINATED_RE.sub(lambda m: m.group(1) + _first_person_verb(m.group(2)), sentence)


def first_person(text: str) -> str:
    """'[Participant] lives ... their day' -> 'I live ... my day': simple cases only, by design."""
    text = re.sub(r"\[Participant\]'s", "my", text, flags=re.IGNORECASE)
    sentences = re.split(r"(?<=[.!?])\s+", text)
    text = " ".join(
        _coordinated_verbs(_PARTICIPANT_VERB_RE.sub(_participant_to_me, s)) if _PARTICIPANT_VERB_RE.search(s) else s
        for s in sentences
    )
    text = re.sub(r"\[Participant\]", "me", text, flags=re.IGNORECASE)
    for pattern, replacement in _THEY_RE.items():
        text = pattern.sub(replacement, text)
    # A sentence that now starts with "my" needs its capital back.
    return re.sub(r"(^|[.!?]\s+)my\b", lambda m: m.group(1) + "My", text)


def split_sentences(text: str, max_chars: int) -> list[str]:
    """Pieces of at most max_chars, cut between sentences (or, for one long sentence, between words)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if s]
    pieces: list[str] = []
    current = ""
    for sentence in sentences:
        while len(sentence) > max_chars:  # a single very long sentence: cut at a word boundary
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > 0 else max_chars
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def summary_sections(summary: str) -> list[tuple[str | None, str]]:
    """(title, body) per '### Title' section of the processed interview; text without titles is one section."""
    sections: list[tuple[str | None, str]] = []
    title: str | None = None
    lines: list[str] = []
    for line in summary.splitlines():
        heading = re.match(r"^\s*#{1,6}\s*(.+?)\s*$", line)
        if heading:
            if " ".join(lines).strip():
                sections.append((title, " ".join(lines).strip()))
            title, lines = heading.group(1), []
        else:
            lines.append(line.strip())
    if " ".join(lines).strip():
        sections.append((title, " ".join(lines).strip()))
    return sections


def interview_passages(summary: str) -> list[str]:
    passages: list[str] = []
    for title, body in summary_sections(summary):
        label = f"From my interview ({title.lower()}): " if title else "From my interview: "
        passages += [label + piece for piece in split_sentences(first_person(body), PASSAGE_MAX_CHARS)]
    return passages


# ---- transcript ----------------------------------------------------------------------------------

_TURN_RE = re.compile(r"^\s*(?P<speaker>interviewer|participant|interviewee)\s*:\s*(?P<text>.*)$", re.IGNORECASE)


def transcript_turns(transcript: str) -> list[tuple[str, str]]:
    """(speaker, text) turns, 'interviewer' or 'participant'; lines without a speaker continue the last turn."""
    turns: list[tuple[str, str]] = []
    for line in transcript.splitlines():
        match = _TURN_RE.match(line)
        if match:
            speaker = "interviewer" if match.group("speaker").lower() == "interviewer" else "participant"
            turns.append((speaker, match.group("text").strip()))
        elif line.strip() and turns:
            speaker, text = turns[-1]
            turns[-1] = (speaker, f"{text} {line.strip()}".strip())
        elif line.strip():
            turns.append(("participant", line.strip()))
    return turns


def _exchanges(turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(question, answer) pairs: each interviewer turn with the participant's words after it."""
    exchanges: list[tuple[str, str]] = []
    question, answers = "", list[str]()
    for speaker, text in turns:
        if speaker == "interviewer":
            if answers:
                exchanges.append((question, " ".join(answers)))
            question = f"{question} {text}".strip() if not answers else text
            answers = []
        elif text:
            answers.append(text)
    if answers:
        exchanges.append((question, " ".join(answers)))
    return exchanges


def _shorten(text: str, limit: int) -> str:
    """The end of a question is where it asks; keep that, trimmed at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    return "..." + tail[tail.find(" ") + 1 :] if " " in tail else "..." + tail


def _exchange_text(question: str, answer: str) -> str:
    asked = f"Asked: {_shorten(question, QUESTION_CONTEXT_CHARS)}\n" if question else ""
    return f"{asked}I said: {answer}"


def transcript_passages(transcript: str) -> list[str]:
    """Participant answers packed into passages of ~600-800 characters, each with the question asked."""
    blocks: list[str] = []
    for question, answer in _exchanges(transcript_turns(transcript)):
        budget = TRANSCRIPT_MAX_CHARS - len(_exchange_text(question, ""))
        blocks += [_exchange_text(question, piece) for piece in split_sentences(answer, max(200, budget))]
    passages: list[str] = []
    current = ""
    for block in blocks:
        if current and (
            len(current) >= TRANSCRIPT_TARGET_CHARS or len(current) + 1 + len(block) > TRANSCRIPT_MAX_CHARS
        ):
            passages.append(current)
            current = block
        else:
            current = f"{current}\n{block}" if current else block
    if current:
        passages.append(current)
    return ["From my interview transcript:\n" + passage for passage in passages]
