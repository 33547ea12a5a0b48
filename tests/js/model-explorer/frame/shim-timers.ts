import { afterAll, vi } from "vitest";

/**
 * Clears, after the file's tests, every interval the Model Explorer frame shim starts (it polls for the
 * drawn canvas): a poll that fires after the test environment is torn down finds no document and fails
 * the run. Call before importing the shim.
 */
export function clearShimTimersAfterAll(): void {
  const timers: number[] = [];
  const setIntervalInWindow = window.setInterval.bind(window);
  vi.spyOn(window, "setInterval").mockImplementation(((handler: TimerHandler, ms?: number) => {
    const id = setIntervalInWindow(handler, ms);
    timers.push(id);
    return id;
  }) as typeof window.setInterval);
  afterAll(() => {
    for (const id of timers) window.clearInterval(id);
  });
}
