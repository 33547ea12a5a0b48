"""Every private torchlens name this package uses, imported here and nowhere else.

torchlens' public exporters only write files or serve over HTTP; the widgets need the same results in
memory, so they call the steps those exporters are made of. torchlens is pinned (<2.37), and
tests/test_torchlens_contract.py pins each name below to what the public exporter writes: when the
pin moves, that file says which of them changed.
"""

from __future__ import annotations

# tl.export.model_explorer_diff: the per-node L2 deltas and the node data made of them.
from torchlens.export._model_explorer._diff import _delta_node_data as delta_node_data
from torchlens.export._model_explorer._diff import _pairwise_deltas as pairwise_deltas

# tl.export.model_explorer(..., overlays=...): the node-data builder it calls.
from torchlens.export._model_explorer._overlay import build_node_data

# tl.export.netron: its option check, projection, extent warning, metadata and disclaimer ...
from torchlens.export._netron import NETRON_DISCLAIMER
from torchlens.export._netron import _build_projection as build_netron_projection
from torchlens.export._netron import _metadata_props as netron_metadata_props
from torchlens.export._netron import _validate_options as validate_netron_options
from torchlens.export._netron import _warn_extent as warn_netron_extent

# ... and the writers of the model JSON, the metrics companion and each node's description.
from torchlens.export._netron_attachment import write_attachment
from torchlens.export._netron_emit import emit_model_json
from torchlens.export._netron_fields import node_doc
from torchlens.export._netron_records import NETRON_MODULE_DOMAIN, NetronNode, NetronProjection

# torchlens' byte formatting ("480.1 MB"), as its own memory lines print sizes.
from torchlens.utils.display import human_readable_size

__all__ = [
    "NETRON_DISCLAIMER",
    "NETRON_MODULE_DOMAIN",
    "NetronNode",
    "NetronProjection",
    "build_netron_projection",
    "build_node_data",
    "delta_node_data",
    "emit_model_json",
    "human_readable_size",
    "netron_metadata_props",
    "node_doc",
    "pairwise_deltas",
    "validate_netron_options",
    "warn_netron_extent",
    "write_attachment",
]
