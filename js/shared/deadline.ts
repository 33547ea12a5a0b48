// A time-out whose clock runs only while waiting is meaningful. A viewer cannot draw into a cell
// that has no layout (a background tab, a collapsed output, a VS Code notebook scrolled away); a
// kernel answers nothing while it runs a cell (requests queue behind it). Both wait with this clock.

const TICK_MS = 500;

/** Displayed time a viewer may take to draw before the widget says it failed. */
export const RENDER_BUDGET_MS = 120_000;

/** Whether `el` takes part in layout (false inside display:none ancestors or when detached). */
export function isDisplayed(el: Element): boolean {
  return el.isConnected && el.getClientRects().length > 0;
}

/** The reason a wait ends when its view stopped waiting (closed, paused, or a newer draw): nobody's error. */
export class WaitAbandoned extends Error {
  constructor() {
    super("the view stopped waiting");
    this.name = "WaitAbandoned";
  }
}

/**
 * Resolves as `pending` does, or rejects with `timeoutError()` once it has been pending for
 * `budgetMs` of time during which `counting()` was true. An aborted `signal` ends the wait at once
 * (rejecting with WaitAbandoned): a view closed before its frame drew leaves no timer behind.
 */
export function pausableDeadline<T>(
  pending: Promise<T>,
  counting: () => boolean,
  timeoutError: () => Error,
  budgetMs: number,
  signal?: AbortSignal,
): Promise<T> {
  let timer: ReturnType<typeof setInterval> | undefined;
  let onAbort = () => {};
  const deadline = new Promise<never>((_, reject) => {
    if (signal?.aborted) {
      reject(new WaitAbandoned());
      return;
    }
    let spent = 0;
    timer = setInterval(() => {
      if (counting()) spent += TICK_MS;
      if (spent >= budgetMs) reject(timeoutError());
    }, TICK_MS);
    onAbort = () => reject(new WaitAbandoned());
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([pending, deadline]).finally(() => {
    clearInterval(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}
