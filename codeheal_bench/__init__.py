"""codeheal-bench: the benchmarks of codeheal (HumanEval, QuixBugs, seeded bugs in real libraries),
a package of its own built on codeheal's public API (`codeheal.build_graph`, `codeheal.Context`,
`codeheal.evaluate`, ...). The product never imports it."""
