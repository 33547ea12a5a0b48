"""What a viewer frame shows, read from the page's pixels (a screenshot clipped to the graph), never from
the widget's own status: a view may say "ready" over a canvas the browser never painted."""

from __future__ import annotations

import io
import time
from typing import Any

from PIL import Image

# Where each viewer draws its graph inside its frame: Model Explorer's WebGL canvases (two panes in a
# diff), Netron's graph area.
GRAPH_AREAS = {"model-explorer": "webgl-renderer canvas.main", "netron": "#target"}

# A drawn graph has boxes, edges and labels; an unpainted canvas is one colour. 0.5% of the area in
# other colours than the background is far above antialiasing noise and below any drawn graph.
PAINTED_FRACTION = 0.005


def graph_boxes(page: Any, root_index: int) -> list[dict[str, float]]:
    """The page rectangles where widget ``root_index``'s frame draws its graph, cut to the frame and
    the viewport (what a reader can see of it); empty while the frame has no graph area yet."""
    root = page.locator(".tlw-root").nth(root_index)
    iframe = root.locator("iframe.tlw-frame")
    if iframe.count() != 1:
        return []
    frame_box = iframe.bounding_box()
    viewer = root.evaluate("el => el.parentElement.dataset.viewer || ''") or _viewer_of(root)
    areas = iframe.content_frame.locator(GRAPH_AREAS[viewer])
    viewport = page.viewport_size
    boxes = []
    for index in range(areas.count()):
        box = areas.nth(index).bounding_box()
        if not box or not frame_box:
            continue
        left = max(box["x"], frame_box["x"], 0)
        top = max(box["y"], frame_box["y"], 0)
        right = min(box["x"] + box["width"], frame_box["x"] + frame_box["width"], viewport["width"])
        bottom = min(box["y"] + box["height"], frame_box["y"] + frame_box["height"], viewport["height"])
        if right - left >= 20 and bottom - top >= 20:
            boxes.append({"x": left, "y": top, "width": right - left, "height": bottom - top})
    return boxes


def _viewer_of(root: Any) -> str:
    title = root.locator(".tlw-title").first.text_content() or ""
    return "netron" if "Netron" in title else "model-explorer"


def painted_fraction(page: Any, box: dict[str, float]) -> float:
    """The share of the pixels in ``box`` (page coordinates) that are not the area's main colour."""
    image = Image.open(io.BytesIO(page.screenshot(clip=box, timeout=30_000))).convert("RGB")
    total = image.width * image.height
    colours = image.getcolors(maxcolors=total) or []
    return 1 - max(count for count, _colour in colours) / total


def shows_a_graph(page: Any, root_index: int) -> bool:
    """True when every graph area of widget ``root_index`` that a reader can see shows a painted graph."""
    boxes = graph_boxes(page, root_index)
    return bool(boxes) and all(painted_fraction(page, box) >= PAINTED_FRACTION for box in boxes)


def wait_for_a_painted_graph(page: Any, index: int, timeout: float = 120) -> None:
    """Polls the page's pixels until widget ``index``, on screen, shows a painted graph."""
    deadline = time.monotonic() + timeout
    while not shows_a_graph(page, index):
        if time.monotonic() > deadline:
            status = page.locator(".tlw-root").nth(index).locator(".tlw-status")
            raise AssertionError(f"widget {index} shows no graph after {timeout} s: {status.text_content()}")
        page.wait_for_timeout(250)  # the poll's interval


def colour_pixels(locator: Any, colour: tuple[int, int, int], margin: int = 40) -> int:
    """How many pixels of the element's screenshot are ``colour``, within ``margin`` per channel."""
    image = Image.open(io.BytesIO(locator.screenshot())).convert("RGB")
    close = lambda pixel: all(abs(a - b) <= margin for a, b in zip(pixel, colour, strict=True))  # noqa: E731
    return sum(count for count, pixel in image.getcolors(maxcolors=1 << 24) if close(pixel))


def wait_for_colour(
    page: Any, element: Any, colour: tuple[int, int, int], more_than: int, margin: int = 40
) -> int:
    """Polls ``element``'s pixels (a draw takes a moment) until more than ``more_than`` are ``colour``;
    returns the last count (the caller asserts on it)."""
    count = colour_pixels(element, colour, margin)
    for _ in range(60):
        if count > more_than:
            break
        page.wait_for_timeout(500)
        count = colour_pixels(element, colour, margin)
    return count


def changed_fraction(before: bytes, after: bytes) -> float:
    """The share of pixels that differ (by more than antialiasing noise) between two screenshots of
    one element; 1.0 when their sizes differ."""
    first = Image.open(io.BytesIO(before)).convert("RGB")
    second = Image.open(io.BytesIO(after)).convert("RGB")
    if first.size != second.size:
        return 1.0
    pairs = zip(first.get_flattened_data(), second.get_flattened_data(), strict=True)
    changed = sum(1 for a, b in pairs if max(abs(x - y) for x, y in zip(a, b, strict=True)) > 24)
    return changed / (first.width * first.height)
