"""A shared service calls only the LLM provider its operator configured, whatever `model` a request names.

litellm picks the address from the model's provider prefix: `ollama/llama3` calls http://localhost:11434, so a
request could make the server reach an address outside the allowed hosts (and read back the connection error).
With TWINSIM_LLM_API_BASE every call goes to that base; otherwise a request's model must be the configured
model (TWINSIM_LLM_MODEL) or another model of the same provider. A refused model is an LLM failure: the brain
or interview falls back to its offline answer and says why.
"""

from __future__ import annotations

from dataclasses import dataclass


def provider_of(model: str) -> str | None:
    """`openai/gpt-4.1` -> `openai`; a bare name (litellm guesses its provider) -> None."""
    head, slash, _ = model.partition("/")
    return head.lower() if slash else None


@dataclass(frozen=True)
class ProviderLock:
    configured_model: str | None
    api_base: str | None

    def refusal(self, model: str) -> str | None:
        """Why `model` may not be called here, or None when it goes to the configured provider."""
        if self.api_base:
            return None  # litellm sends every call to the configured base
        if self.configured_model is None:
            return (
                f"model '{model}' refused: this service calls no LLM provider unless its operator configures "
                "one (TWINSIM_LLM_MODEL, TWINSIM_LLM_API_BASE)"
            )
        if model == self.configured_model:
            return None
        mine, theirs = provider_of(self.configured_model), provider_of(model)
        if mine is not None and theirs == mine:
            return None
        return (
            f"model '{model}' refused: it would call provider '{theirs or model}', not this service's "
            f"configured provider '{mine or self.configured_model}' (TWINSIM_LLM_MODEL, TWINSIM_LLM_API_BASE)"
        )
