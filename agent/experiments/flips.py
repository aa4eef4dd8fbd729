"""Which personas changed what they did between the control and a variant: the flips behind a difference in rates.

A rate difference of +5 points can be five personas that started buying or fifteen that started and ten that
stopped. Each twin instance (persona, instance) ran on every variant with the same seed, so its two runs are
compared directly: for purchase and leave, a flip is an instance that did it on one variant and not on the
other. Per persona the instances are summed. Deterministic: personas sorted by flips, then id.
"""

from __future__ import annotations

from collections import defaultdict

from agent.experiments.samples import Sample

OUTCOMES = ("purchase", "leave")
MAX_LISTED = 200  # personas listed per comparison; the totals always count them all


def persona_flips(samples: list[Sample], variant_names: list[str], max_listed: int = MAX_LISTED) -> dict:
    """{"outcomes", "comparisons": [{control, variant, pairs, personas, personas_changed, totals, listed: [...]}]}.

    A listed persona: {persona_id, instances, <outcome>: {control, variant, gained, lost}} with counts over its
    paired instances; `gained` did it on the variant only, `lost` on the control only."""
    by_key: dict[tuple[str, str, int], Sample] = {(s.variant, s.persona_id, s.instance): s for s in samples}
    control, *others = variant_names
    comparisons = []
    for variant in others:
        per_persona: dict[str, dict] = defaultdict(
            lambda: {"instances": 0, **{o: {"control": 0, "variant": 0, "gained": 0, "lost": 0} for o in OUTCOMES}}
        )
        unpaired = 0
        for (name, persona_id, instance), before in by_key.items():
            if name != control:
                continue
            after = by_key.get((variant, persona_id, instance))
            if after is None:
                unpaired += 1
                continue
            row = per_persona[persona_id]
            row["instances"] += 1
            for outcome in OUTCOMES:
                was, now = getattr(before, outcome), getattr(after, outcome)
                counts = row[outcome]
                counts["control"] += was
                counts["variant"] += now
                counts["gained"] += now and not was
                counts["lost"] += was and not now
        changed = [
            (pid, row) for pid, row in per_persona.items() if any(row[o]["gained"] or row[o]["lost"] for o in OUTCOMES)
        ]
        changed.sort(key=lambda item: (-sum(item[1][o]["gained"] + item[1][o]["lost"] for o in OUTCOMES), item[0]))
        comparisons.append(
            {
                "control": control,
                "variant": variant,
                "pairs": sum(row["instances"] for row in per_persona.values()),
                "unpaired": unpaired,
                "personas": len(per_persona),
                "personas_changed": len(changed),
                "totals": {
                    o: {
                        "gained": sum(row[o]["gained"] for row in per_persona.values()),
                        "lost": sum(row[o]["lost"] for row in per_persona.values()),
                    }
                    for o in OUTCOMES
                },
                "listed": [{"persona_id": pid, **row} for pid, row in changed[:max_listed]],
            }
        )
    return {"outcomes": list(OUTCOMES), "max_listed": max_listed, "comparisons": comparisons}
