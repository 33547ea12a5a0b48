"""``Explorer.save_html``: the replies one explorer gives, gathered for one self-contained file (the
file itself, its recording and its size bound, is _offline.py's)."""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import OverlayUnavailableError
from .._offline import read_bundle, write_page
from .._overlays import Overlay
from .._progress import Progress
from .._protocol import GraphResult, InspectRecord, MemoryTimelineResult, Reply
from ..viewers import ViewerSource
from . import bundle

# Overlay name -> (its graph reply, the toolbar's summary), and overlay name -> why it is refused.
RecordedGraphs = tuple[dict[str, tuple[Reply[GraphResult], str]], dict[str, str]]

# The synced traits the saved HTML file needs to draw the same view.
SAVED_TRAITS = (
    *("viewer", "granularity", "overlay", "overlay_summary", "baseline_summary", "height"),
    *("selected_node", "selected_label", "_asset_key", "_graph_rev", "_colour_rev", "_graph_info"),
    "_overlay_choices",
    *("depth", "show_buffers", "highlighted", "_highlight_nodes", "_highlight_roles", "debug_status"),
    *("inspector_width", "inspector_collapsed", "timeline", "_memory_line"),
)


@dataclass(frozen=True)
class SavedView:
    """What an explorer shows, as the file needs it."""

    state: Mapping[str, Any]  # SAVED_TRAITS' values
    source: ViewerSource
    overlays: Sequence[str]  # the overlay on screen, then every choice the toolbar offers
    overlay_for: Callable[[str], Overlay | None]  # raises OverlayUnavailableError for a refused one
    inspect: Callable[[str], Reply[InspectRecord]]
    # The memory strip's reply when the strip is shown (the file shows it too), else None.
    timeline: Callable[[], Reply[MemoryTimelineResult]] | None = None
    # A comparison: run name -> that run's overlay_for (the file holds every run's colours), else None.
    runs: Mapping[str, Callable[[str], Overlay | None]] | None = None


def save_explorer_html(
    view: SavedView, target: pathlib.Path, inspector: bool, max_bytes: int, progress: bool | None
) -> pathlib.Path:
    """What ``Explorer.save_html`` documents: the viewer, every overlay's graph and the inspector facts."""
    frontend = read_bundle(bundle.BUNDLE)  # a missing bundle fails before any work
    state = dict(view.state)
    # No kernel to answer questions; the page draws the live graph, no picture of it is needed.
    state.update(status="", error="", notice="", _debug_questions=[], _picture="")
    info = state["_graph_info"] = view.source.info()  # exports here if no view has asked yet
    names = list(dict.fromkeys(["", *view.overlays]))
    labels = view.source.index.labels_by_id()
    nodes = len(set(labels.values())) if inspector else 0
    runs = dict(view.runs or {})
    steps = len(names) * (1 + len(runs))
    bar = Progress(steps + nodes, "Saving", progress)
    done = 0

    def graphs_of(overlay_for: Callable[[str], Overlay | None], run: str = "") -> RecordedGraphs:
        nonlocal done
        graphs: dict[str, tuple[Reply[GraphResult], str]] = {}
        refused: dict[str, str] = {}
        for name in names:
            done += 1
            bar.update(done, f"{f'run {run}, ' if run else ''}overlay {name or '(none)'}")
            try:
                overlay = overlay_for(name)
            except OverlayUnavailableError as error:
                refused[name] = str(error)
                continue
            # Every reply holds the same graph bytes (stored once in the file): only node data differ.
            # (colourRev 0: the file's page numbers its own recolours.)
            graphs[name] = (view.source.graph(overlay, 0), overlay.summary if overlay else "")
        return graphs, refused

    graphs, refused = graphs_of(view.overlay_for)
    run_graphs = {run: graphs_of(overlay_for, run) for run, overlay_for in runs.items()}
    try:
        report = write_page(
            target,
            bundle=frontend,
            title=f"{info.get('label') or 'model'} in {state['viewer']}",
            state=state,
            assets=view.source.assets().reply(),
            graphs=graphs,
            refused=refused,
            labels=labels,
            timeline=view.timeline() if view.timeline is not None else None,
            runs=run_graphs or None,
            inspect=view.inspect if inspector else None,
            first=state["selected_label"],
            max_bytes=max_bytes,
            progress=lambda node: bar.update(steps + node, f"node {node:,} of {nodes:,}"),
        )
    except Exception as error:
        bar.finish(f"not saved: {type(error).__name__}", ok=False)
        raise
    left_out = report.trimmed + report.bare
    bar.finish(
        f"{target.name}: {report.bytes / 1e6:.1f} MB"
        + (f"; {left_out:,} of {report.nodes:,} nodes without value summary (max_bytes)" if left_out else "")
    )
    return target
