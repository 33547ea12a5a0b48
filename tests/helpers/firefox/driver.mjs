// Drives Debian's Firefox ESR for the e2e tests over WebDriver BiDi (puppeteer-core; Playwright drives only
// its own Firefox build). One JSON command a line on stdin, one JSON answer a line on stdout:
//   {"id": 1, "op": "goto", "url": "..."}  ->  {"id": 1, "ok": true, "value": ...} or {"id": 1, "ok": false, "error": "..."}
// The first line out is {"ready": true, "firefoxPid": ...}. Closing stdin closes Firefox.
// Usage: node driver.mjs <firefox executable> <width> <height> (DISPLAY set to a running X server).
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [executablePath, width, height] = process.argv.slice(2);
const viewport = { width: Number(width), height: Number(height) };

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath,
  protocol: "webDriverBiDi",
  headless: false, // headless Firefox has no WebGL here; the X server renders it with llvmpipe
  defaultViewport: viewport,
  args: [`--width=${viewport.width}`, `--height=${viewport.height + 100}`],
});
// A tab of its own: the window's first tab never had the focus under Xvfb (Firefox ESR 153: document.hasFocus()
// stayed false and no focus event fired, so JupyterLab had no current notebook); a new tab has it.
const page = await browser.newPage();
for (const other of await browser.pages()) if (other !== page) await other.close();

// What the page did, for the tests' "no request leaves the machine" and "no console error".
const requests = [];
const consoleErrors = [];
page.on("request", (request) => requests.push(request.url()));
page.on("console", (message) => {
  if (message.type() === "error") consoleErrors.push(message.text());
});
page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message ?? error}`));

// The target of an evaluation: the page, or the `index`-th element matching `selector` (an iframe)'s frame.
async function target(frame) {
  if (!frame) return page;
  const handles = await page.$$(frame.selector);
  try {
    const content = await handles[frame.index]?.contentFrame();
    if (!content) throw new Error(`no frame in ${frame.selector} #${frame.index} on the page`);
    return content;
  } finally {
    await Promise.all(handles.map((handle) => handle.dispose()));
  }
}

const ops = {
  goto: ({ url }) => page.goto(url, { waitUntil: "load" }).then(() => null),
  // `source` is a function's text, called with `arg` (JSON); a promise it returns is awaited.
  evaluate: async ({ source, arg, frame }) => (await target(frame)).evaluate(`(${source})(${JSON.stringify(arg ?? null)})`),
  click: async ({ x, y, modifiers = [] }) => {
    for (const key of modifiers) await page.keyboard.down(key);
    await page.mouse.click(x, y);
    for (const key of modifiers) await page.keyboard.up(key);
    return null;
  },
  type: ({ text }) => page.keyboard.type(text).then(() => null),
  screenshot: async ({ clip }) => page.screenshot({ clip, encoding: "base64" }),
  log: () => ({ requests, consoleErrors }),
};

console.log(JSON.stringify({ ready: true, firefoxPid: browser.process()?.pid }));
for await (const line of createInterface({ input: process.stdin })) {
  const { id, op, ...params } = JSON.parse(line);
  try {
    const value = await ops[op](params);
    console.log(JSON.stringify({ id, ok: true, value: value ?? null }));
  } catch (error) {
    console.log(JSON.stringify({ id, ok: false, error: String(error?.stack ?? error) }));
  }
}
await browser.close();
