"""When the page's pixels changed, read apart from the widget: the compositor's frames of the whole tab
(Chromium's screencast, over CDP), each stamped with the wall-clock time it was made. A change to a
drawn graph is drawn, as the reader sees it, at the first frame whose pixels over the viewer's canvas
differ from the last frame before the change; a frame that differs again after it is a picture the
change showed on the way (a flicker a reader may see). The widget's own `draws` counter is moved by its
frame once that frame read its canvas changed; the two figures must agree (the counter's stamp and the
compositor's frame are at most a few display frames apart)."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image, ImageChops

from tests.helpers.pixels import graph_boxes

# A graph area in the page: graph_boxes()' dicts (x, y, width, height in the viewport's CSS pixels).
Box = dict[str, float]


class PagePixels:
    """The page's screencast while it runs (start(), stop()): each frame kept with its time, in ms since
    the epoch (the clock the kernel's `time.time()` and the page's `Date.now()` share)."""

    def __init__(self, page: Any) -> None:
        self._session = page.context.new_cdp_session(page)
        # Heard while the bench waits on the page (Playwright's sync API runs handlers in this thread), in
        # the order made: the browser sends a frame only once the last is acknowledged.
        self._frames: list[tuple[float, str]] = []
        self._session.on("Page.screencastFrame", self._on_frame)

    def _on_frame(self, params: dict[str, Any]) -> None:
        # The browser sends the next frame only once this one is acknowledged.
        self._session.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})
        self._frames.append((float(params["metadata"]["timestamp"]) * 1000, params["data"]))

    def start(self) -> None:
        self._session.send("Page.startScreencast", {"format": "png", "everyNthFrame": 1})

    def stop(self) -> None:
        self._session.send("Page.stopScreencast")

    def changes(self, started_ms: float, box: Box) -> list[float]:
        """The times of the frames made after ``started_ms`` whose pixels in ``box`` differ from the
        frame before them (the first compared with the last frame made before ``started_ms``): when
        the change was first seen, and any picture it went through on the way (empty if no frame came
        before, or none changed)."""
        earlier = [data for at, data in self._frames if at < started_ms]
        if not earlier:
            return []
        shown, times = _crop(earlier[-1], box), []
        for at, data in self._frames:
            if at < started_ms:
                continue
            picture = _crop(data, box)
            if _differs(shown, picture):
                times.append(at)
                shown = picture
        return times

    def forget(self) -> None:
        """Drops the frames kept (each a PNG of the page) but the last, the next change's "before"."""
        self._frames = self._frames[-1:]


def _crop(data: str, box: Box) -> Image.Image:
    # The screencast's frames are at the page's CSS pixels (a device scale factor of 1, no maxWidth).
    image = Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    left, top = round(box["x"]), round(box["y"])
    return image.crop((left, top, left + round(box["width"]), top + round(box["height"])))


def _differs(before: Image.Image, after: Image.Image) -> bool:
    # Any pixel: the frames are PNG (exact) and the canvas draws the same scene to the same pixels, while
    # two overlays' colours may differ by a few levels only on the nodes shown (GPT-2's time and flops).
    return before.size != after.size or ImageChops.difference(before, after).getbbox() is not None


def canvas_box(page: Any, cell: int) -> Box:
    """What a reader sees of the Model Explorer canvas of the widget in ``cell`` (one widget a cell)."""
    boxes = graph_boxes(page, cell)
    if not boxes:
        raise RuntimeError(f"the graph of the widget in cell {cell} is not on screen")
    return boxes[0]
