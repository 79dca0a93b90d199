"""The graph `langgraph dev` serves (see langgraph.json): codeheal's compiled graph, which
carries no checkpointer because the server brings its own. Run from this directory:
``cd studio && langgraph dev``."""

from codeheal import graph

__all__ = ["graph"]
