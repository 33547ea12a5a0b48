"""The widgets: Explorer (one trace, ``tlw.explore``) and Diff (two, ``tlw.diff``) on a shared base, like
js/'s explore and diff views; PrecisionExplorer (``tlw.precision``) is an Explorer of a low-precision run."""

from .compare import Compare
from .diff import Diff
from .explorer import Explorer
from .precision import PrecisionExplorer

__all__ = ["Compare", "Diff", "Explorer", "PrecisionExplorer"]
