"""The graph's nodes: prepare, actor, evaluator, reflector."""
