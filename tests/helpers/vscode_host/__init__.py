"""An emulated VS Code notebook (its ipywidgets manager in a cross-site webview) for the e2e tests."""
