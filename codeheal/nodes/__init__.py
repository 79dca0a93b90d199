"""The graph's nodes: prepare, actor, prepare_candidates, test_candidate, evaluator, reflector, selector, review, finish."""
