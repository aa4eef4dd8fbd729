"""Two finished runs of the same kind side by side: what differed in their setup, and which outcomes differ beyond
noise. Apart from agent/reporting, which only renders, because it uses the experiments' statistics."""
