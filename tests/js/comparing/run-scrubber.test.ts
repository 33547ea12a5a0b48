// @vitest-environment happy-dom
// The run scrubber of a comparison (tlw.compare): it names the run shown, steps by its buttons, the arrow
// keys and the play button, sets `run` on the model, follows the kernel's `run`, and never takes the focus.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindRunScrubber, RunScrubber, type ScrubberTimers } from "../../../js/comparing/run-scrubber";
import type { TraitsModel } from "../../../js/view/traits";
import type { ViewLife } from "../../../js/view/view-life";
import { FakeWidgetModel } from "../fake-widget-model";

const RUNS = ["step0", "step1", "step2", "step3"];

/** Timers the test runs by hand: `tick()` fires the interval once. */
function manualTimers(): ScrubberTimers & { tick(): void; running: boolean } {
  let handler: (() => void) | null = null;
  return {
    setInterval(callback) {
      handler = callback;
      return 1;
    },
    clearInterval() {
      handler = null;
    },
    tick() {
      handler?.();
    },
    get running() {
      return handler !== null;
    },
  };
}

function scrubber(run = "step1") {
  const picked: string[] = [];
  const timers = manualTimers();
  const s = new RunScrubber((name) => picked.push(name), timers, 10);
  document.body.append(s.root);
  s.show(RUNS, run, "step0");
  return { s, picked, timers };
}

function key(target: Element, name: string): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

afterEach(() => {
  document.body.replaceChildren();
  vi.restoreAllMocks();
});

describe("RunScrubber", () => {
  it("names the run shown, its place and the reference, and bounds the slider by the runs", () => {
    const { s } = scrubber("step0");
    expect(s.slider.max).toBe("3");
    expect(s.slider.value).toBe("0");
    expect(s.root.textContent).toContain("step0 (reference) · 1/4");
    expect(s.slider.getAttribute("aria-valuetext")).toBe("step0 (reference)");
    expect(s.slider.title.split("\n")).toEqual(["1. step0 (reference)", "2. step1", "3. step2", "4. step3"]);
    expect(s.previous.disabled).toBe(true);
    expect(s.next.disabled).toBe(false);
  });

  it("steps with previous / next and picks the neighbour's name", () => {
    const { s, picked } = scrubber("step1");
    s.next.click();
    s.next.click();
    expect(picked).toEqual(["step2", "step3"]);
    expect(s.next.disabled).toBe(true);
    s.previous.click();
    expect(picked.at(-1)).toBe("step2");
  });

  it("picks what the slider moved to (its arrow keys, Home / End, the pointer)", () => {
    const { s, picked } = scrubber("step1");
    s.slider.value = "3";
    s.slider.dispatchEvent(new Event("input"));
    expect(picked).toEqual(["step3"]);
    expect(s.root.textContent).toContain("step3 · 4/4");
  });

  it("steps by the arrow keys while a control of it has the focus, and keeps them from the notebook", () => {
    const { s, picked } = scrubber("step1");
    const notebook = vi.fn();
    document.body.addEventListener("keydown", notebook);
    const right = key(s.next, "ArrowRight");
    key(s.previous, "ArrowLeft");
    key(s.next, "ArrowUp");
    expect(picked).toEqual(["step2", "step1", "step2"]);
    expect(right.defaultPrevented).toBe(true);
    expect(notebook).not.toHaveBeenCalled();
    key(s.slider, "ArrowRight"); // the slider steps itself; its input event picks
    expect(picked).toHaveLength(3);
    key(s.next, "a"); // any other key is the notebook's
    expect(notebook).toHaveBeenCalledTimes(1);
  });

  it("plays through the runs to the last and stops; pause and a step stop it", () => {
    const { s, picked, timers } = scrubber("step1");
    s.play.click();
    expect(s.playing).toBe(true);
    expect(s.play.getAttribute("aria-pressed")).toBe("true");
    timers.tick();
    timers.tick();
    expect(picked).toEqual(["step2", "step3"]);
    timers.tick();
    expect(s.playing).toBe(false);
    expect(timers.running).toBe(false);
    s.play.click(); // from the last run: from the first again
    expect(picked.at(-1)).toBe("step0");
    s.play.click();
    expect(s.playing).toBe(false);
    s.play.click();
    s.next.click();
    expect(s.playing).toBe(false);
  });

  it("never takes the focus: not when shown, nor when the kernel or the play button moves it", () => {
    const focus = vi.spyOn(HTMLElement.prototype, "focus");
    const outside = document.createElement("textarea");
    document.body.append(outside);
    outside.focus();
    focus.mockClear();
    const { s, timers } = scrubber("step1");
    s.show(RUNS, "step2", "step0");
    s.play.dispatchEvent(new Event("click")); // as a click would, without moving the focus
    timers.tick();
    expect(focus).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(outside);
  });
});

describe("bindRunScrubber", () => {
  function model(state: Record<string, unknown>) {
    const fake = new FakeWidgetModel(state) as FakeWidgetModel & { save_changes: () => void };
    fake.save_changes = vi.fn();
    return fake;
  }

  it("puts the scrubber under the toolbar, sets run on the model and follows the kernel's run", () => {
    const fake = model({ runs: RUNS, run: "step1", reference: "step0" });
    const toolbar = document.createElement("div");
    const life: ViewLife = { disposed: false, lost: null };
    const stop = bindRunScrubber(fake as unknown as TraitsModel, (el) => toolbar.append(el), life);
    const next = toolbar.querySelector<HTMLButtonElement>(".tlw-scrub-next")!;
    next.click();
    expect(fake.get("run")).toBe("step2");
    expect(fake.save_changes).toHaveBeenCalledTimes(1);
    fake.set("run", "step0"); // from Python
    expect(toolbar.querySelector<HTMLInputElement>(".tlw-scrub-slider")!.value).toBe("0");
    expect(toolbar.textContent).toContain("step0 (reference)");
    expect(fake.save_changes).toHaveBeenCalledTimes(1); // the kernel's change is not sent back
    stop();
    fake.set("run", "step3");
    expect(toolbar.querySelector<HTMLInputElement>(".tlw-scrub-slider")!.value).toBe("0");
  });

  it("adds nothing to a widget without runs, and asks nothing once the kernel is gone", () => {
    const toolbar = document.createElement("div");
    const life: ViewLife = { disposed: false, lost: null };
    bindRunScrubber(model({}) as unknown as TraitsModel, (el) => toolbar.append(el), life);
    expect(toolbar.children).toHaveLength(0);
    const fake = model({ runs: RUNS, run: "step1", reference: "step0" });
    bindRunScrubber(fake as unknown as TraitsModel, (el) => toolbar.append(el), life);
    life.lost = "restarted";
    toolbar.querySelector<HTMLButtonElement>(".tlw-scrub-next")!.click();
    expect(fake.get("run")).toBe("step1");
    expect(fake.save_changes).not.toHaveBeenCalled();
    expect(toolbar.querySelector<HTMLButtonElement>(".tlw-scrub-play")!.disabled).toBe(true);
  });
});
