"""Pictures of the graph, made offline: Mermaid text, or a PNG through pygraphviz."""

from __future__ import annotations

from pathlib import Path

from codeheal.errors import ConfigError
from codeheal.loop.builder import build_graph


def mermaid() -> str:
    """The codeheal graph as Mermaid flowchart text, the attempt's steps drawn inside it."""
    return build_graph().compile(name="codeheal").get_graph(xray=True).draw_mermaid()


def draw_png(path: str | Path) -> Path:
    """Write the codeheal graph as a PNG picture to `path` and return the path.
    Raises ConfigError when pygraphviz is not installed."""
    try:
        import pygraphviz  # noqa: F401  (draw_png imports it lazily and hides the reason)
    except ImportError as exc:
        raise ConfigError(
            f"drawing a PNG needs pygraphviz ({exc}): pip install pygraphviz "
            "(it needs the graphviz headers: apt-get install libgraphviz-dev), or use Mermaid text"
        ) from None
    target = Path(path)
    build_graph().compile(name="codeheal").get_graph(xray=True).draw_png(str(target))
    return target
