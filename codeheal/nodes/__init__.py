"""The graph's nodes: prepare, actor, test_candidate, evaluator, reflector, selector, review, finish."""
