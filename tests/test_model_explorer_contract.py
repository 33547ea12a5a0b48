"""Contract test for the Model Explorer internals the frame reaches (js/model-explorer/frame/shim-recolour.ts,
shim-runs-in-place.ts, shim-marks.ts, shim-selection.ts, shim-still.ts, shim-pixel-ratio.ts,
shim-hit-boxes.ts): an overlay switch adds a run to the app's node-data service (or sets, switches or
clears it in place), a baseline sets attributes on its graphs' nodes (and its layout worker's copy), a
highlight sets rules of its node styler, through the renderers the app lists on window.me_test, the
user's selections are told from the app's answers to the page's, the widget's own changes are drawn
without the app's move-into-place animation, software WebGL draws at the screen's resolution, and the
app's invisible hit boxes are not drawn. Each name is looked up in the installed app's script, so a new
ai-edge-model-explorer that renames one fails here, by name, instead of as an overlay switch or a
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


# What shim-recolour.ts and shim-runs-in-place.ts use, as the minified script spells it (names of methods
# and fields survive minification; parameters do not).
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
    # An overlay switch restyled in place (shim-runs-in-place.ts restyledInPlace,
    # docs/recolour-opened-graph.md):
    # the renderer redraws everything only for another results object, so the same one is filled anew
    # by the app's own colouring, the runs set again and the pane's run selected under a new id, and
    # the renderer draws the bars, the nodes' styles and the scene once.
    "the renderer redraws only for another results object": (
        r"\w+=this\.webglRendererNdpService\.curNodeDataProviderResults\(\),\w+=this\.webglRendererNdpService"
        r"\.curNodeDataProviderRun\(\);\w+!==this\.prevNodeDataProviderData&&\(this\.handleCurNodeDataProviderResultsChanged\("
    ),
    # An overlay set from none and a clear in place (shim-runs-in-place.ts addedInPlace, clearedInPlace):
    # the renderer is told the results it drew last are the new ones, before they are published.
    "the renderer keeps the results and run it drew last, as fields": (
        r"prevNodeDataProviderData=void 0;prevNodeDataProviderRun=void 0;"
    ),
    "the renderer's redraw effect remembers what it drew": (
        r"handleCurNodeDataProviderResultsChanged\(this\.prevNodeDataProviderRun,\w+\),"
        r"this\.prevNodeDataProviderData=\w+,this\.prevNodeDataProviderRun=\w+\)"
    ),
    "a run added as addRun makes it: its id, name, state, extension": (
        r"\w+\[e\]=\{runId:e,runName:n,done:s!=null,results:"
    ),
    "deleting a run selects the graph's next run, or none, for its panes": (
        r"deleteRun\(e\)\{.{0,300}setSelectedNodeDataProviderRunId\(n\.id,r\.length>0\?r\[0\]\.runId:void 0\)"
    ),
    "its results are the pane's selected run's, for its graph": (
        r"curNodeDataProviderRun=\w+\(\(\)=>this\.webglRenderer\?this\.nodeDataProviderExtensionService"
        r"\.getSelectedRunForModelGraph\(this\.webglRenderer\.paneId,"
        r"this\.webglRenderer\.curModelGraph\):void 0\);"
        r"curNodeDataProviderResults=\w+\(\(\)=>\(this\.curNodeDataProviderRun\(\)\?\.results\|\|\{\}\)"
        r"\[this\.webglRenderer\.curModelGraph\.id\]\)"
    ),
    "the pane's selected run is found by its id": (
        r"getSelectedRunForModelGraph\(e,n\)\{let r=this\.appService\.getSelectedNodeDataProviderRunId\(e\);"
        r"return r\?this\.getRunsForModelGraph\(n\)\.find\(s=>s\.runId===r\):void 0\}"
    ),
    "a run's results: the app's colouring of its file, per graph": (
        r"results:s==null\?void 0:\{\[o\.id\]:this\.processNodeDataProviderDataForGraph\(o,s\)\}"
        r",extensionId:r,collectionId:c,remotePath:l,nodeDataProviderData:s\}"
    ),
    "the app's colouring of a file for a graph": r"\bprocessNodeDataProviderDataForGraph\(e,n\)\{",
    "another graph picked is coloured when its results are missing": (
        r"o\.results\[e\.id\]==null&&o\.nodeDataProviderData!=null&&\(o\.results\[e\.id\]="
        r"this\.processNodeDataProviderDataForGraph\(e,o\.nodeDataProviderData\)\)"
    ),
    "the runs are a signal (set)": r"\bruns=\w+\(\{\}\)",
    # The restyle selects its renamed run on the pane object itself: the app reads it from there.
    "a pane's selected run is read from the pane": (
        r"getSelectedNodeDataProviderRunId\(e\)\{return this\.getPaneById\(e\)\?\."
        r"selectedNodeDataProviderRunId\}"
    ),
    "the renderer's run is found by the pane's selected id among the runs": (
        r"getSelectedRunForModelGraph\(e,n\)\{let r=this\.appService\.getSelectedNodeDataProviderRunId\(e\);"
        r"return r\?this\.getRunsForModelGraph\(n\)\.find\(s=>s\.runId===r\)"
    ),
    "the info panel reads the runs again when they change": (
        r"\w+\(\(\)=>\{this\.nodeDataProviderExtensionService\.runs\(\),this\.genInfoData\(\)"
    ),
    "the node-data summary keys its rows on the runs' ids (so a new id refreshes them)": (
        r"getRunsKey\(e\)\{return e\.map\(n=>\{let r=\[\];r\.push\(n\.runId\)"
    ),
    "a renderer holds its node-data drawing and its three.js service": (
        r"this\.webglRendererNdpService=\w+.{0,300}"
    ),
    "the node-data drawing's meshes": (
        r"nodeDataProviderDistributionBars=new \w+\(0,this\.visualizerThemeService\);"
        r"nodeDataProviderSummaryTexts=new \w+\(this\.threejsService\)"
    ),
    "drawing the value bars adds their meshes to the scene": (
        r"renderNodeDataProviderDistributionBars\(\)\{.{0,3000}"
        r"this\.webglRendererThreejsService\.addToScene\(this\.nodeDataProviderDistributionBars\.mesh\),"
        r"this\.nodeDataProviderSummaryTexts\.generateMesh\(\w+,!1,!0,!0\),"
        r"this\.webglRendererThreejsService\.addToScene\(this\.nodeDataProviderSummaryTexts\.mesh\)\}"
    ),
    "removing a mesh from the scene": r"removeFromScene\(e\)\{e&&this\.scene\.remove\(e\)\}",
    "the nodes' styles restore their colours and take the results'": (
        r"updateNodesStyles\(e\)\{.{0,800}this\.nodeBodies\.restoreBgColors\(\).{0,6000}"
        r"let \w+=this\.webglRendererNdpService\.curNodeDataProviderResults\(\)\|\|\{\};"
        r"for\(let \w+ of Object\.keys\(\w+\)\)"
    ),
    "the app's own redraw on new results (the in-place route draws once instead)": (
        r"handleCurNodeDataProviderResultsChanged\(e,n\)\{"
        r"let r=e\?\.nodeDataProviderData\?\.\[this\.curModelGraph\.id\]"
        r"\?\.showExpandedSummaryOnGroupNode,.{0,200}this\.sendRelayoutGraphRequest\(this\.selectedNodeId\):"
        r"\(this\.renderGraph\(\),this\.updateNodesStyles\(\),this\.webglRendererThreejsService\.render\(\)\)\}"
    ),
    "a run's values written on the nodes: a view-on-node item named after the run": (
        r'\w+="Node data provider: "'
    ),
    "a renderer's view-on-node items, by its pane and its own id": (
        r"getShowOnNodeItemTypes\(this\.paneId,this\.rendererId\)"
    ),
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
    # A highlight's rules (shim-marks.ts markRule, layerRules) name the marked nodes' labels before their
    # ids or paths: the styler tries a rule's queries in order and stops at the first that fails.
    "a rule's queries stop at the first that fails": (
        r"if\(\w+\(\w+\.matchTypes,\w+\.queryRegex,\w+,\w+,\w+\)\.matches\.length===0\)\{\w+=!1;break\}"
    ),
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
    # A change of the widget's drawn still (shim-still.ts): the renderer's move-into-place animation is
    # one method of the renderer, drawing each frame's progress and the scene until the end state (its
    # default progress: every mesh of the renderer), and every helper of a renderer animates through it.
    "the renderer's move-into-place animation ends at progress 1, drawn": (
        r"animateIntoPositions\(e=n=>\{this\.updateAnimatinProgress\(n\)\}\)\{let n=Date\.now\(\),r=\(\)=>"
        r"\{.{0,120}e\(s\),this\.webglRendererThreejsService\.render\(\),s>=1\)\{e\(s\),"
        r"this\.webglRendererThreejsService\.render\(\);return\}requestAnimationFrame\(r\)\};r\(\)\}"
    ),
    "the renderer's helpers animate through the renderer": r"this\.webglRenderer\.animateIntoPositions\(",
    "the renderer's progress is set on all its meshes": r"updateAnimatinProgress\(e,n\)\{this\.nodeBodies\.",
    # A select of the widget's centred at once (shim-still.ts): the three.js service centres its camera in
    # one method whose last argument is the glide's duration, 0 setting the camera at once, and the app's
    # centring on a node reaches it through zoomFit.
    "the camera is centred by one method, at once for a duration of 0": (
        r"centerViewAt\(e,n,r,o=300\)\{.{0,300}o===0\?(\w+)\.call\(this\.zoom\.transform,(\w+)\):"
        r"\1\.transition\(\)\.duration\("
    ),
    "a node is centred through zoomFit and centerViewAt": (
        r"zoomFitOnNode\(e,n,r\)\{e\?setTimeout\(\(\)=>\{let o=n\.nodesById\[e\];o\?this\.zoomFit\("
    ),
    "zoomFit centres the camera through centerViewAt": (
        r"this\.centerViewAt\(\w+,\w+,\w+\*\w+,r\)\}zoomFitOnNode"
    ),
    # shim-pixel-ratio.ts: in software WebGL the frame answers a ratio a hair above 1 where the screen's
    # is 1, which this helper passes on instead of drawing at 1.5 times the screen's pixels.
    "the pixel ratio is 1.5 where the screen's is 1, else the screen's": (
        r"function \w+\(\)\{return window\.devicePixelRatio===1\?1\.5:window\.devicePixelRatio\}"
    ),
    "the graph's renderer draws at that ratio, multisampled": (
        r"antialias:!0,alpha:!0\}\);let (\w+)=\w+\(\);this\.renderer\.setPixelRatio\(\1\)"
    ),
    # shim-hit-boxes.ts: the boxes the pointer hits are a mesh in a material that draws nothing, added to
    # the scene through one method of the three.js service; the frame hides that material from the
    # renderer (which draws only visible materials), and the raycaster, which tests an object's layers
    # and a mesh's geometry only, still hits them. The frame sets the test handle before the app, which
    # keeps one it finds.
    "the app keeps a test handle it finds on window": r"\w+\[\w+\]==null&&\(\w+\[\w+\]=\{renderers:\{\}\}\)",
    "the hit boxes' material draws nothing": (
        r"materialForRayCasting=new \w+\.MeshBasicMaterial\(\{opacity:0,transparent:!0\}\)"
    ),
    "the hit boxes are a mesh of their own in that material": (
        r"meshForRayCasting=new \w+\.InstancedMesh\(new \w+\.BoxGeometry\(1,1,1\),"
        r"this\.materialForRayCasting,"
    ),
    "the hit boxes are what the pointer is tested against": (
        r"\w+\.intersectObject\(this\.meshForRayCasting\)"
    ),
    "the hit boxes are added to the scene through the service": (
        r"this\.webglRendererThreejsService\.addToScene\(this\.nodeBodies\.meshForRayCasting\)"
    ),
    "adding a mesh to the scene": r"addToScene\(e\)\{e&&this\.scene\.add\(e\)\}",
    "three.js raycasts an object by its layers, whatever its visibility": (
        r"function \w+\((\w+),(\w+),(\w+),\w+\)\{if\(\1\.layers\.test\(\2\.layers\)&&\1\.raycast\(\2,\3\)"
    ),
    "a mesh's raycast reads its material only for being there": (
        r"raycast\(t,e\)\{let n=this\.geometry,r=this\.material,o=this\.matrixWorld;if\(r===void 0\|\|"
    ),
    "three.js draws only visible materials": r"else (\w+)\.visible&&\w+\.push\(\w+,\w+,\1,",
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
