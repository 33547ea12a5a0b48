"""Comparing captures: the split-pane diff (``tlw.diff``) and the baseline facts (``explore(baseline=)``)."""
