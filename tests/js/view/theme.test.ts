// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { followHostTheme, hostKind, hostScheme } from "../../../js/view/theme";

function body(setup: (el: HTMLElement) => void): HTMLElement {
  const el = document.createElement("body");
  setup(el);
  return el;
}

describe("hostScheme", () => {
  it("reads JupyterLab's and Notebook 7's data-jp-theme-light", () => {
    expect(hostScheme(body((el) => (el.dataset.jpThemeLight = "false")))).toBe("dark");
    expect(hostScheme(body((el) => (el.dataset.jpThemeLight = "true")))).toBe("light");
  });

  it("reads VS Code's classes, high-contrast light as light", () => {
    expect(hostScheme(body((el) => el.classList.add("vscode-dark")))).toBe("dark");
    expect(hostScheme(body((el) => el.classList.add("vscode-high-contrast", "vscode-high-contrast-light")))).toBe("light");
    expect(hostScheme(body((el) => (el.dataset.vscodeThemeKind = "vscode-high-contrast")))).toBe("dark");
  });

  it("says nothing for an unknown host", () => {
    expect(hostScheme(body(() => {}))).toBeNull();
  });
});

describe("followHostTheme", () => {
  it("puts the host's scheme on the root and follows a switch", async () => {
    const host = body((el) => (el.dataset.jpThemeLight = "true"));
    const root = document.createElement("div");
    const stop = followHostTheme(root, host);
    expect([root.style.colorScheme, root.dataset.theme]).toEqual(["light", "light"]);
    host.dataset.jpThemeLight = "false";
    await new Promise((resolve) => setTimeout(resolve, 0)); // MutationObserver callbacks are microtasks
    expect([root.style.colorScheme, root.dataset.theme]).toEqual(["dark", "dark"]);
    stop();
    host.dataset.jpThemeLight = "true";
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(root.dataset.theme).toBe("dark");
  });
});

describe("hostKind", () => {
  it("tells JupyterLab, VS Code and anything else apart", () => {
    expect(hostKind(body((el) => (el.dataset.jpThemeLight = "true")))).toBe("jupyter");
    expect(hostKind(body((el) => el.classList.add("vscode-light")))).toBe("vscode");
    expect(hostKind(body(() => {}))).toBe("other");
  });
});
