"""Many runs on one graph (``tlw.compare``): the runs collected, named and aligned, and their overlays on
the one graph drawn. Pure, no widget (``widgets/compare.py`` puts them on the graph)."""
