"""A notebook saved with its widget state in a real JupyterLab: the server that saves it, the save, and
the pictures the file keeps."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.helpers.harness import JupyterServer

STATE = "application/vnd.jupyter.widget-state+json"

# Non-background pixels of an <img>, read through a canvas (its data: URL is same-origin).
INKED_PIXELS = """image => {
  const canvas = document.createElement('canvas');
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
  let inked = 0;
  const away = i =>
    Math.abs(data[i] - data[0]) + Math.abs(data[i + 1] - data[1]) + Math.abs(data[i + 2] - data[2]);
  for (let i = 0; i < data.length; i += 4) if (away(i) > 60) inked++;
  return inked;
}"""


def saved_pictures(path: Path) -> list[str]:
    """The `_picture` of every widget model the notebook file keeps."""
    notebook = json.loads(path.read_text())
    state = notebook["metadata"].get("widgets", {}).get(STATE, {}).get("state", {})
    return [model["state"]["_picture"] for model in state.values() if "_picture" in model["state"]]


def lab_saving_widget_state(root: Path, env: dict[str, str]) -> JupyterServer:
    """A JupyterLab in ``root`` whose notebooks keep their widget state (the widget manager's setting);
    ``env``: more of its environment (WarmKernels.env())."""
    settings = root / ".jupyter-state" / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"saveState": True}))
    return JupyterServer(root, extra_env=env).start()


def save_notebook(page: Any, path: Path, pictures: int, timeout: float) -> list[str]:
    """Saves the open notebook as the File menu does; the pictures in the file once it holds ``pictures``
    (or what it holds after ``timeout`` seconds)."""
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    deadline = time.monotonic() + timeout
    while len(saved_pictures(path)) < pictures and time.monotonic() < deadline:
        time.sleep(0.5)
    return saved_pictures(path)


def assert_shows_a_drawn_graph(page: Any, image: Any) -> None:
    """The saved picture ``image`` (a locator) has loaded and shows a drawn graph, not a blank rectangle."""
    page.wait_for_function("image => image.complete && image.naturalWidth > 0", arg=image.element_handle())
    assert image.evaluate(INKED_PIXELS) > 500
