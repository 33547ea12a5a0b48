"""The widgets: Explorer (one trace, ``tlw.explore``) and Diff (two, ``tlw.diff``) on a shared base, like
js/'s explore and diff views."""

from .diff import Diff
from .explorer import Explorer

__all__ = ["Diff", "Explorer"]
