"""End-to-end tests: a real JupyterLab (and other hosts) in headless Chromium."""
