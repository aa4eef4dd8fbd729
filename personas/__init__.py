"""Who a twin is: the persona schema, survey scoring, readers of persona sources, and the memory store."""
