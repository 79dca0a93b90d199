"""Talking to the model: the prompts of both forms, code out of a reply, one model call."""
