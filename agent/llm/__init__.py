"""The LLM brain's parts in one place: the prompt it sends, how its answer is read, and the client that calls it.

Nothing here imports agent.brains: the brain (agent/brains/llm.py) uses these parts, never the reverse.
"""
