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

/**
 * Resolves as `pending` does, or rejects with `timeoutError()` once it has been pending for
 * `budgetMs` of time during which `counting()` was true.
 */
export function pausableDeadline<T>(pending: Promise<T>, counting: () => boolean, timeoutError: () => Error, budgetMs: number): Promise<T> {
  let timer: ReturnType<typeof setInterval> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    let spent = 0;
    timer = setInterval(() => {
      if (counting()) spent += TICK_MS;
      if (spent >= budgetMs) reject(timeoutError());
    }, TICK_MS);
  });
  return Promise.race([pending, deadline]).finally(() => clearInterval(timer));
}
