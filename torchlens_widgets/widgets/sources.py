"""Which viewer draws a trace now: one viewer source per viewer (and Netron granularity) of one trace,
made on first use and kept, each told the baseline's facts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._assets import AssetBundle
from ..diffing.baseline import BaselineFacts
from ..graph_model import TraceGraph
from ..viewers import ViewerSource, make_source
from ..viewers.netron import check_netron_options


class TraceSources:
    """The viewer sources of one trace (its graph model shared by all) and the one shown now.

    ``current`` is set only once its source exists: a viewer whose assets are missing raises and the
    widget keeps the one it shows.
    """

    def __init__(
        self,
        log: Any,
        graph: TraceGraph,
        privacy_profile: str,
        *,
        viewer: str,
        granularity: str,
        depth: int,
        show_buffers: str,
    ) -> None:
        self._log = log
        self._graph = graph
        self._privacy_profile = privacy_profile
        self._netron_options = check_netron_options(depth, show_buffers)
        self._facts: BaselineFacts | None = None
        self._marks: Mapping[str, str] = {}
        self._made: dict[tuple[str, str], ViewerSource] = {}
        self.current: ViewerSource = self._source_for(viewer, granularity)  # raises before drawing
        self.viewer = viewer  # the current source's viewer

    def show(self, viewer: str, granularity: str) -> ViewerSource:
        """Make ``viewer`` (at ``granularity``, for Netron) the current source, and return it."""
        self.current = self._source_for(viewer, granularity)
        self.viewer = viewer
        return self.current

    def set_netron_options(self, depth: int, show_buffers: str) -> None:
        """Netron's options changed: its sources are made again on next use."""
        options = check_netron_options(depth, show_buffers)
        if options != self._netron_options:
            self._netron_options = options
            self._made = {key: source for key, source in self._made.items() if key[0] != "netron"}

    def tell_facts(self, facts: BaselineFacts | None) -> None:
        """The baseline's facts (None: none), told to every source made and to be made."""
        self._facts = facts
        for source in self._made.values():
            source.baseline = facts

    def tell_marks(self, marks: Mapping[str, str]) -> None:
        """A comparison's ops that some runs lack (label -> those runs), told to every source."""
        self._marks = marks
        for source in self._made.values():
            source.node_marks = marks

    def bundles(self) -> list[AssetBundle]:
        """Every asset bundle published (a view may ask for any of them)."""
        return [source.assets() for source in self._made.values()]

    def _source_for(self, viewer: str, granularity: str) -> ViewerSource:
        # Model Explorer shows every granularity in one payload; Netron has one artifact per granularity.
        key = (viewer, granularity if viewer == "netron" else "")
        if key not in self._made:
            depth, show_buffers = self._netron_options
            source = make_source(
                viewer, self._log, granularity, self._privacy_profile, depth, show_buffers, self._graph
            )
            source.baseline = self._facts
            source.node_marks = self._marks
            self._made[key] = source
        return self._made[key]
