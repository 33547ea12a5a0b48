// The widget's own CSS, scoped under .tlw-root; it follows JupyterLab's theme variables when present.
import { INSPECTOR_STYLES } from "../inspector/inspector";
import { STRIP_STYLES } from "../memory/memory-strip";

/**
 * Hosts without JupyterLab's variables (theme.ts sets data-host): VS Code's variables stand in for
 * them, and elsewhere (a saved HTML file) a dark palette follows the OS preference.
 */
const HOST_PALETTES = `
.tlw-root[data-host="vscode"] {
  --jp-layout-color1: var(--vscode-editor-background); --jp-layout-color2: var(--vscode-sideBar-background, var(--vscode-editor-background));
  --jp-layout-color3: var(--vscode-editorWidget-background); --jp-ui-font-color1: var(--vscode-editor-foreground);
  --jp-ui-font-color2: var(--vscode-descriptionForeground); --jp-border-color1: var(--vscode-input-border, var(--vscode-panel-border));
  --jp-border-color2: var(--vscode-panel-border); --jp-brand-color1: var(--vscode-focusBorder);
  --jp-ui-font-family: var(--vscode-font-family); --jp-code-font-family: var(--vscode-editor-font-family); }
@media (prefers-color-scheme: dark) {
  .tlw-root[data-host="other"] { --jp-layout-color1: #1e1e1e; --jp-layout-color2: #2a2a2a; --jp-layout-color3: #3a3a3a;
    --jp-ui-font-color1: #e0e0e0; --jp-ui-font-color2: #a8a8a8; --jp-border-color1: #555; --jp-border-color2: #444;
    --jp-brand-color1: #64b5f6; }
}
`;

export const STYLES =
  HOST_PALETTES +
  `
.tlw-root { display: flex; flex-direction: column; width: 100%; box-sizing: border-box;
  border: 1px solid var(--jp-border-color2, #d0d0d0); border-radius: 4px; overflow: hidden;
  font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 12px;
  color: var(--jp-ui-font-color1, #222); background: var(--jp-layout-color1, #fff); }
.tlw-toolbar { display: flex; align-items: center; gap: 8px; padding: 4px 8px; min-height: 24px;
  border-bottom: 1px solid var(--jp-border-color2, #d0d0d0); background: var(--jp-layout-color2, #f5f5f5); }
.tlw-title { font-weight: 600; white-space: nowrap; }
.tlw-status { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  color: var(--jp-ui-font-color2, #555); }
.tlw-status[data-state="loading"]::before { content: ""; display: inline-block; width: 8px; height: 8px;
  margin-right: 6px; border-radius: 50%; background: var(--jp-brand-color1, #1976d2);
  animation: tlw-pulse 1s ease-in-out infinite alternate; }
.tlw-status[data-state="disconnected"] { color: var(--jp-warn-color0, #7a4b00); font-weight: 600; }
@keyframes tlw-pulse { from { opacity: .25 } to { opacity: 1 } }
.tlw-overlay { display: flex; align-items: center; gap: 4px; white-space: nowrap; }
.tlw-overlay-select { font: inherit; font-size: 12px; color: inherit; background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #bbb); border-radius: 3px; padding: 1px 2px; }
.tlw-overlay-info { max-width: 40%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  color: var(--jp-ui-font-color2, #555); }
.tlw-debug { display: flex; gap: 4px; white-space: nowrap; }
.tlw-scrubber { display: flex; align-items: center; gap: 6px; padding: 2px 8px; white-space: nowrap;
  border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
.tlw-scrub-button { font: inherit; font-size: 12px; padding: 1px 6px; cursor: pointer; border-radius: 3px;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color1, #fff); color: inherit; }
.tlw-scrub-button:disabled, .tlw-scrub-slider:disabled { opacity: 0.5; cursor: default; }
.tlw-scrub-button:focus-visible, .tlw-scrub-slider:focus-visible {
  outline: 2px solid var(--jp-brand-color1, #1976d2); outline-offset: 1px; }
.tlw-scrub-slider { flex: 1; min-width: 80px; max-width: 480px; margin: 0; }
.tlw-scrub-name { font-size: 12px; max-width: 240px; overflow: hidden; text-overflow: ellipsis; }
.tlw-debug-button { font: inherit; font-size: 12px; padding: 1px 8px; cursor: pointer; border-radius: 3px;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color1, #fff); color: inherit; }
.tlw-debug-button:hover:not(:disabled) { border-color: #d81b60; }
.tlw-debug-button:focus-visible { outline: 2px solid var(--jp-brand-color1, #1976d2); outline-offset: 1px; }
.tlw-debug-button:disabled { opacity: 0.5; cursor: default; }
.tlw-notice { display: none; padding: 4px 10px; white-space: pre-wrap; color: var(--jp-warn-color0, #7a4b00);
  background: var(--jp-warn-color3, #fff4e0); border-bottom: 1px solid var(--jp-warn-color2, #f0d39c); }
.tlw-notice[data-visible="true"] { display: block; }
.tlw-chips { display: none; flex-wrap: wrap; gap: 4px; align-items: center; padding: 4px 8px;
  border-bottom: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-chips[data-visible="true"] { display: flex; }
.tlw-chips-title { color: var(--jp-ui-font-color2, #555); margin-right: 4px; }
.tlw-chip { font: inherit; font-size: 11px; padding: 1px 6px; border-radius: 10px; cursor: pointer;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color2, #f5f5f5); color: inherit; }
.tlw-chip:hover { border-color: var(--jp-brand-color1, #1976d2); }
.tlw-side { display: flex; flex-direction: column; flex: 0 0 min(360px, 45%); min-height: 0; overflow: auto; }
.tlw-side > .tlw-inspector { flex: 1 1 auto; }
/* The diff's two panes need the full width: its two inspectors sit below them, side by side. */
.tlw-root[data-kind="diff"] .tlw-main { flex-direction: column; }
.tlw-root[data-kind="diff"] .tlw-side { flex: 0 0 260px; flex-direction: row; border-top: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-root[data-kind="diff"] .tlw-side > .tlw-inspector { flex: 1 1 33%; min-width: 0; }
.tlw-main { display: flex; flex: 1; min-height: 0; }
.tlw-body { position: relative; flex: 1; min-height: 0; min-width: 0; }
.tlw-saved-picture { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; object-position: left top; }
.tlw-placeholder { position: absolute; inset: 0; display: flex; flex-direction: column; gap: 8px; align-items: center;
  justify-content: center; padding: 24px; text-align: center; color: var(--jp-ui-font-color2, #555); }
.tlw-frame { display: block; width: 100%; height: 100%; border: 0; }
.tlw-actions, .tlw-images { display: flex; gap: 4px; align-items: center; }
.tlw-button { font: inherit; font-size: 12px; line-height: 16px; padding: 1px 6px; border-radius: 3px; cursor: pointer;
  border: 1px solid var(--jp-border-color1, #bbb); background: var(--jp-layout-color1, #fff); color: inherit; white-space: nowrap; }
.tlw-button svg { display: block; margin: 2px 0; }
.tlw-button:hover { border-color: var(--jp-brand-color1, #1976d2); }
.tlw-strip-switch[aria-pressed="true"] { border-color: var(--jp-brand-color1, #1976d2); background: var(--jp-layout-color2, #eee); }
.tlw-root button:focus-visible, .tlw-root select:focus-visible, .tlw-divider:focus-visible {
  outline: 2px solid var(--jp-brand-color1, #1976d2); outline-offset: 1px; }
/* The divider between the graph and the inspector (js/inspector/inspector-layout.ts): drag it, or arrow keys when focused. */
.tlw-divider { position: relative; flex: 0 0 8px; box-sizing: border-box; cursor: col-resize; touch-action: none;
  background: var(--jp-layout-color2, #f5f5f5); border-left: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-divider:hover, .tlw-root[data-dragging="true"] .tlw-divider { background: var(--jp-border-color2, #d0d0d0); }
.tlw-root[data-dragging="true"] iframe { pointer-events: none; }
.tlw-fold { position: absolute; top: 4px; left: 50%; transform: translateX(-50%); z-index: 1; width: 16px; height: 28px;
  padding: 0; font: inherit; font-size: 13px; line-height: 1; cursor: pointer; color: var(--jp-ui-font-color2, #555);
  border: 1px solid var(--jp-border-color1, #bbb); border-radius: 3px; background: var(--jp-layout-color1, #fff); }
.tlw-fold:hover { border-color: var(--jp-brand-color1, #1976d2); color: inherit; }
.tlw-root[data-inspector="collapsed"] .tlw-divider { flex-basis: 20px; cursor: default; }
.tlw-root[data-inspector="collapsed"] .tlw-divider + * { display: none; }
.tlw-divider[data-orientation="horizontal"] { flex: 0 0 18px; cursor: default; border-left: 0;
  border-top: 1px solid var(--jp-border-color2, #d0d0d0); }
.tlw-divider[data-orientation="horizontal"] .tlw-fold { top: 1px; left: auto; right: 8px; transform: none; width: 28px; height: 15px; }
.tlw-root[data-kind="diff"][data-inspector="collapsed"] .tlw-divider { flex-basis: 18px; }
/* Maximized: the widget covers the notebook window (in the top layer where the browser has one). */
.tlw-root[data-maximized="true"] { position: fixed; inset: 0; z-index: 10000; width: auto; height: auto !important;
  max-width: none; max-height: none; margin: 0; padding: 0; border-radius: 0; overflow: hidden; }
.tlw-error { display: none; margin: 0; padding: 8px 10px; white-space: pre-wrap; font-family: var(--jp-code-font-family, monospace);
  color: var(--jp-error-color1, #b00020); background: var(--jp-error-color3, #fdecea);
  border-bottom: 1px solid var(--jp-error-color2, #f5c2c0); }
.tlw-error[data-visible="true"] { display: block; }
` +
  INSPECTOR_STYLES +
  STRIP_STYLES;
