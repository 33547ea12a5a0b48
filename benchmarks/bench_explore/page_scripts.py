"""What the benchmark evaluates in the pages: JupyterLab's cells and widgets, the served viewers' pages,
the emulated VS Code webview."""

# How long a page may take to draw a graph.
RENDER_TIMEOUT_MS = 300_000

RUN_CELL = """i => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = i;
  return window.jupyterapp.commands.execute('notebook:run-cell');
}"""

# The data-* timings of the widget in cell i once it is ready (null while loading).
WIDGET_TIMINGS = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  const status = root?.querySelector('.tlw-status');
  // A failed first draw has no renderedAt: said at once.
  if (status?.dataset.state === 'error') return {error: root.innerText};
  if (!status || status.dataset.state === 'loading' || !root.parentElement.dataset.renderedAt) return null;
  return {...root.parentElement.dataset};
}"""

FORGET_TIMINGS = """i => {
  const root = document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.tlw-root');
  if (root) root.parentElement.dataset.renderedAt = '';
}"""

# Selection messages the viewer frame posts to the page (heard in the capture phase, before the
# widget's own listener forwards them to the kernel), and the status line of the widget in cell i.
WATCH_CLICKS = """([i, command]) => {
  window.__clickAt = [];
  window.addEventListener('message', (e) => {
    if (e.data && e.data.cmd === command) window.__clickAt.push(Date.now());
  }, true);
  window.__backAt = [];
  const status = document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelector('.tlw-status');
  new MutationObserver(() => window.__backAt.push([Date.now(), status.textContent]))
    .observe(status, {childList: true, characterData: true, subtree: true});
}"""

BACK_AT = """([label, after]) =>
  (window.__backAt.find(([at, text]) => at >= after && text.includes('selected ' + label)) || [null])[0]"""

# In the served pages (init scripts, polled over CDP: Netron's browser.js replaces window.eval, which
# Playwright's own evaluate relies on). Model Explorer: the same test the widget's frame shim uses.
ME_RENDERED = """(() => { const poll = setInterval(() => {
  const canvas = document.querySelector('webgl-renderer canvas');
  if (canvas && canvas.width > 0 && !document.querySelector('mat-spinner')) {
    window.__renderedAt = Date.now(); clearInterval(poll);
  }
}, 50); })();"""
# Netron: nodes exist (invisible) while it measures them; laid out, they have a position, and the page
# leaves its "welcome spinner" state (what view.open() awaits in the widget's frame).
NETRON_RENDERED = """(() => { const poll = setInterval(() => {
  if (document.body.classList.contains('default') && document.querySelector('#canvas g.node[transform]')) {
    window.__renderedAt = Date.now(); clearInterval(poll);
  }
}, 50); })();"""


VSCODE_RENDERED = """() => {
  const root = document.querySelector('.tlw-root');
  const status = root?.querySelector('.tlw-status');
  // A failed first draw has no renderedAt: said at once.
  if (status?.dataset.state === 'error') return {error: root.innerText};
  if (!status || status.dataset.state === 'loading' || !root.parentElement.dataset.renderedAt) return null;
  return {...root.parentElement.dataset};
}"""
