import { afterEach, describe, expect, it, vi } from "vitest";
import { pausableDeadline, WaitAbandoned } from "../../../js/shared/deadline";

afterEach(() => vi.useRealTimers());

describe("pausableDeadline", () => {
  it("resolves with the drawing time when the viewer draws", async () => {
    await expect(
      pausableDeadline(
        Promise.resolve(42),
        () => true,
        () => new Error("late"),
        1_000,
      ),
    ).resolves.toBe(42);
  });

  it("fails after the budget of displayed time", async () => {
    vi.useFakeTimers();
    const result = pausableDeadline(
      new Promise<number>(() => {}),
      () => true,
      () => new Error("did not draw"),
      2_000,
    );
    const caught = result.catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await caught).toBe("did not draw");
  });

  it("does not count time while the widget is hidden (a background tab)", async () => {
    vi.useFakeTimers();
    let displayed = false;
    let settled = false;
    const result = pausableDeadline(
      new Promise<number>(() => {}),
      () => displayed,
      () => new Error("late"),
      2_000,
    );
    result.catch(() => (settled = true));
    await vi.advanceTimersByTimeAsync(60_000); // a minute in a hidden tab
    expect(settled).toBe(false);
    displayed = true;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(settled).toBe(true);
  });

  it("ends at once, leaving no timer, when its view stops waiting", async () => {
    // A view closed before its frame drew: the frame's promise never settles, the wait must not outlive it.
    vi.useFakeTimers();
    const stop = new AbortController();
    const result = pausableDeadline(
      new Promise<number>(() => {}),
      () => true,
      () => new Error("late"),
      120_000,
      stop.signal,
    );
    const caught = result.catch((error: unknown) => error);
    expect(vi.getTimerCount()).toBe(1);
    stop.abort();
    expect(await caught).toBeInstanceOf(WaitAbandoned);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not start waiting for a view that already stopped", async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    stop.abort();
    const caught = pausableDeadline(
      new Promise<number>(() => {}),
      () => true,
      () => new Error("late"),
      1_000,
      stop.signal,
    ).catch((error: unknown) => error);
    expect(await caught).toBeInstanceOf(WaitAbandoned);
    expect(vi.getTimerCount()).toBe(0);
  });
});
