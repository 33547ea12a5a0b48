"""Contract test for the Model Explorer internals the frame reaches (js/model-explorer/shim-recolour.ts,
shim-marks.ts, shim-selection.ts): an overlay switch adds a run to the app's node-data service, a
baseline sets attributes on its graphs' nodes (and its layout worker's copy), a highlight sets rules of
its node styler, through the renderers the app lists on window.me_test, and the user's selections are
told from the app's answers to the page's. Each name is looked up in the installed app's script, so a
new ai-edge-model-explorer that renames one fails here, by name, instead of as an overlay switch or a
highlight that silently draws nothing."""

from __future__ import annotations

import re

import pytest

from torchlens_widgets.viewers.model_explorer import model_explorer_assets


@pytest.fixture(scope="module")
def app_script() -> str:
    bundle = model_explorer_assets()
    (name,) = [name for name in bundle.files if name.startswith("main-") and name.endswith(".js")]
    return bundle.files[name].decode()


# What shim-recolour.ts uses, as the minified script spells it (names of methods and fields survive
# minification; parameters do not).
INTERNALS = {
    "the app's test handle on window": r'="me_test"',
    "each renderer lists itself by pane index": r"\[\w+\]\.renderers\[\w+\]=this",
    "a renderer holds the node-data service": r"this\.nodeDataProviderExtensionService=\w+",
    "a renderer holds the app service": r"appService=S\(\w+\)",
    "the service's runs": r"\bruns=\w+\(\{\}\)",
    "adding a run with its data selects it for the pane": r"addRun\(e,n,r,o,s,a=!1,l\)\{.{0,900}"
    r"setSelectedNodeDataProviderRunId\(",
    "deleting a run": r"\bdeleteRun\(e\)\{",
    "parsing a node data file as the upload does": r"\bgetNodeDataProviderData\(e,n\)\{",
    "the model graph of a pane": r"\bgetModelGraphFromPaneIndex\(e\)\{",
    "a renderer holds the node styler": r"this\.nodeStylerService=\w+",
    "the node styler's rules": r"\brules=\w+\(\[\]\)",
    "a renderer paints by the styler's rules": r"curProcessedNodeStylerRules=\w+\(this\.curNodeStylerRules\)",
    "a regex query": r'REGEX="regex"',
    "a query of node types, op nodes": r'NODE_TYPE="node_type".{0,200}OP_NODES="op_nodes"',
    "matching a node's attributes as key:value": r'ATTRIBUTE="list"',
    "an op node's id among its attributes": r"n\.id=i\.id",
    "the styles a rule sets": r'NODE_BG_COLOR="node_bg_color".{0,80}NODE_BORDER_COLOR="node_border_color"',
    # A baseline's facts set in place, as the app's own addNodeAttributes sets them (shim-recolour.ts).
    "the app's addNodeAttributes: the pane's graph, then the worker": r"addNodeAttributes\(e,n,r=0\)\{"
    r".{0,300}"
    r"s\.attrs=.{0,120}eventType:\w+\.UPDATE_MODEL_GRAPH_CACHE_WITH_NODE_ATTRIBUTES,modelGraphId:o\.id,"
    r"nodeId:e,attrs:n,paneId:this\.appService\.panes\(\)\[r\]\.id",
    "the worker's event number for it (UPDATE_NODE_ATTRIBUTES_EVENT)": (
        r"UPDATE_MODEL_GRAPH_CACHE_WITH_NODE_ATTRIBUTES=12\]"
    ),
    "a renderer holds the worker service": r"workerService=S\(\w+\)",
    "the collections the app loaded": r"curGraphCollections=\w+\(\[\]\)",
    "a renderer's own graph": r"this\.curModelGraph=",
    # A highlight borders the layers around its ops (shim-marks.ts layerRules): layer nodes matched by
    # their label and the "namespace" attribute the styler reads for a layer, the path around it.
    "a query of layer nodes": r'LAYER_NODES="layer_nodes"',
    "matching a node's label": r'NODE_LABEL="title"',
    "a label query tests the node's label": r"\w+\.has\(\w+\.NODE_LABEL\)&&\w+\.test\(\w+\.label\.replace\(",
    "a layer's attributes: the path around it, <root> at the top (ROOT_NAMESPACE)": (
        r'namespace:\w+\.namespace\|\|\w+\.savedNamespace\|\|"<root>"'
    ),
    # A baseline cleared leaves {type: "tlw-cleared"} in the worker's copy (CLEARED_ATTRIBUTE): the
    # search and the node styler read an attribute that is no string only by its own known types.
    "a node's attributes read as strings, other values only by known type": (
        r"Object\.entries\(\w+\.attrs\|\|\{\}\)\)if\(typeof (\w+)==\"string\"\)\w+\[\w+\]=\1;"
        r"else switch\(\1\.type\)\{case [\w$]+\.NODE_IDS:.{0,60}default:break\}"
    ),
    # Whose selection it is (shim-selection.ts): the app reports every selection to its parent alike, a
    # select of the page's included, and a click selects the node under the pointer at once (after the
    # press the shim reports).
    "the app reports a selection to its parent": (
        r'window\.parent\.postMessage\(\{cmd:"model-explorer-node-selected",nodeId:'
    ),
    "the app selects a node by id on the parent's command": (
        r'case"model-explorer-select-node-by-node-id":let (\w+)=\w+\.nodeId;'
        r"\1&&this\.handleSelectNodeByNodeIdFromPostMessage\(\1\)"
    ),
    "a click on the graph selects the node under the pointer": (
        r"handleClickOnGraph\(\w+\)\{this\.hoveredNodeId\?.{0,80}this\.handleSelectNode\(this\.hoveredNodeId\)"
    ),
}

# What the layout worker does with that message: merge, keyed by pane (its copy is what an expand returns).
WORKER_INTERNALS = {
    "the worker merges the attributes into its copy of the node": r"case 12:\{let (\w+)=\w+\("
    r"\w+\.modelGraphId,"
    r"\w+\.paneId\);.{0,80}\.attrs=\{\.\.\.\w+\.attrs,\.\.\.\w+\.attrs\}",
    # A layer's label is the last part of its path, its namespace the path around it (layerRules).
    "a layer is labelled by the last part of its path, under the path around it": (
        r"let (\w+)=\w+\(\w+\),(\w+)=\w+\(\1\.splice\(-1\)\[0\]\),(\w+)=\1\.join\(\"/\"\),"
        r"\w+=\{nodeType:1,id:this\.getGroupNodeIdFromNamespace\(\w+\),namespace:\3,label:\2,"
    ),
    # What it sizes a node's attribute table by: strings only, so a cleared one takes no room.
    "the worker's node attribute table takes only strings": r"let (\w+)=\w+\.attrs\|\|\{\},\w+=\[\],"
    r"\w+=new RegExp\(\w+,\"i\"\);for\(let (\w+) of Object\.keys\(\1\)\)\{let \w+=\2,(\w+)=\1\[\2\];"
    r"if\(typeof \3==\"string\"\)",
}


@pytest.mark.parametrize("what", INTERNALS)
def test_the_installed_app_has_the_internals_the_shim_uses(app_script: str, what: str) -> None:
    assert re.search(INTERNALS[what], app_script, re.DOTALL), f"Model Explorer no longer has {what}"


@pytest.mark.parametrize("what", WORKER_INTERNALS)
def test_the_installed_layout_worker_has_what_the_shim_relies_on(what: str) -> None:
    bundle = model_explorer_assets()
    (name,) = [name for name in bundle.files if name.startswith("worker-") and name.endswith(".js")]
    script = bundle.files[name].decode()
    found = re.search(WORKER_INTERNALS[what], script, re.DOTALL)
    assert found, f"Model Explorer's worker no longer has {what}"
