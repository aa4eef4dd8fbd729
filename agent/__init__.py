"""How a twin decides: the page it observes, the actions it can take, the graph, brains and evaluation."""
