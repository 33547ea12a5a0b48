// How long a viewer may take to draw, counted only while the widget is displayed: a cell in a
// background tab, a collapsed output or a VS Code notebook scrolled away has no layout, and no viewer
// can draw into a zero-size frame. The clock resumes when the widget is shown again.

/** Displayed time a viewer may take to draw before the widget says it failed. */
export const RENDER_BUDGET_MS = 120_000;
const TICK_MS = 500;

/** Whether `el` takes part in layout (false inside display:none ancestors or when detached). */
export function isDisplayed(el: Element): boolean {
  return el.isConnected && el.getClientRects().length > 0;
}

/**
 * Resolves as `rendered` does, or rejects with `timeoutError()` once it has been pending for
 * `budgetMs` of time during which `displayed()` was true.
 */
export function renderDeadline<T>(
  rendered: Promise<T>,
  displayed: () => boolean,
  timeoutError: () => Error,
  budgetMs = RENDER_BUDGET_MS,
): Promise<T> {
  let timer: ReturnType<typeof setInterval> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    let spent = 0;
    timer = setInterval(() => {
      if (displayed()) spent += TICK_MS;
      if (spent >= budgetMs) reject(timeoutError());
    }, TICK_MS);
  });
  return Promise.race([rendered, deadline]).finally(() => clearInterval(timer));
}
