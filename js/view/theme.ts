// Follows the notebook's light/dark theme. Both viewers already theme themselves from
// `prefers-color-scheme`, which inside an iframe follows the iframe's own `color-scheme` (Chromium 129+,
// Firefox 105+). So the widget only has to put the host's scheme on its root, which its frames inherit:
// JupyterLab 4 / Notebook 7 say it on <body data-jp-theme-light>, VS Code with body classes.

export type Scheme = "light" | "dark";

/** The host's scheme, or null where the host does not say (the OS preference then applies). */
export function hostScheme(body: HTMLElement): Scheme | null {
  const light = body.dataset.jpThemeLight;
  if (light === "true" || light === "false") return light === "true" ? "light" : "dark";
  const kind =
    body.dataset.vscodeThemeKind ??
    // "vscode-high-contrast-light" also carries "vscode-high-contrast": look for the light ones first.
    ["vscode-high-contrast-light", "vscode-light", "vscode-dark", "vscode-high-contrast"].find((name) => body.classList.contains(name));
  if (kind) return kind.includes("light") ? "light" : "dark";
  return null;
}

/** Which notebook frontend draws the page: its CSS variables differ (styles.ts maps VS Code's). */
export function hostKind(body: HTMLElement): "jupyter" | "vscode" | "other" {
  if (body.dataset.jpThemeLight !== undefined || body.dataset.jpThemeName !== undefined) return "jupyter";
  if (body.dataset.vscodeThemeKind !== undefined || [...body.classList].some((name) => name.startsWith("vscode-"))) {
    return "vscode";
  }
  return "other";
}

/**
 * Keeps `root`'s color-scheme and data-theme equal to the host's, and data-host naming the host;
 * returns the function that stops following.
 */
export function followHostTheme(root: HTMLElement, body: HTMLElement = document.body): () => void {
  const apply = () => {
    const scheme = hostScheme(body);
    root.dataset.host = hostKind(body);
    root.style.colorScheme = scheme ?? "";
    if (scheme) root.dataset.theme = scheme;
    else delete root.dataset.theme;
  };
  apply();
  const observer = new MutationObserver(apply);
  observer.observe(body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class", "data-vscode-theme-kind"] });
  return () => observer.disconnect();
}
