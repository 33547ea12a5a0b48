// Where one view is in its life, shared by its parts (drawing, inspection, debug buttons): closed, or
// read-only since its kernel went (restarted, died, or none: restored from a saved notebook).
import type { KernelLoss } from "../kernel/kernel-watch";

export interface ViewLife {
  disposed: boolean;
  /** Set once the kernel is gone: nothing may ask it or report to it any more. */
  lost: KernelLoss | null;
}
