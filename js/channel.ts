// Request/response with the kernel over the widget's custom messages (see torchlens_widgets/_channel.py).
// The frontend asks; each request carries an id and times out, so a dead kernel shows an error
// instead of an endless spinner. A kernel that is busy running cells answers once it is idle again
// (requests queue behind the cells): while it is busy, the clock does not run out.
import { pausableDeadline } from "./deadline";

export interface CustomMessageModel {
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
  on(event: "msg:custom", callback: (content: unknown, buffers: DataView[]) => void): void;
  off(event: "msg:custom", callback: (content: unknown, buffers: DataView[]) => void): void;
}

export interface Response<T> {
  result: T;
  buffers: DataView[];
}

interface WireResponse {
  type: "response";
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export class RequestError extends Error {}

function isResponse(content: unknown): content is WireResponse {
  return typeof content === "object" && content !== null && (content as WireResponse).type === "response";
}

export class KernelChannel {
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: Response<unknown>) => void; reject: (e: Error) => void }>();
  private readonly listener = (content: unknown, buffers: DataView[]) => this.receive(content, buffers);
  /** Set once the kernel is gone: every request fails at once with this reason. */
  private closedReason = "";

  /** `kernelBusy` says whether the kernel is running a cell now (unknown: always false). */
  constructor(
    private readonly model: CustomMessageModel,
    private readonly kernelBusy: () => boolean = () => false,
  ) {
    model.on("msg:custom", this.listener);
  }

  request<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<Response<T>> {
    const id = ++this.nextId;
    if (this.closedReason) return Promise.reject(new RequestError(this.closedReason));
    const answered = new Promise<Response<T>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: Response<unknown>) => void, reject });
      this.model.send({ type: "request", id, method, params });
    });
    // The clock stops while the kernel runs a cell: the request is queued behind it, not lost.
    return pausableDeadline(answered, () => !this.kernelBusy(), () => {
      this.pending.delete(id);
      return new RequestError(`The kernel did not answer '${method}' within ${Math.round(timeoutMs / 1000)} s. Is it still running? Re-run the cell.`);
    }, timeoutMs);
  }

  private receive(content: unknown, buffers: DataView[]): void {
    if (!isResponse(content)) return;
    const entry = this.pending.get(content.id);
    if (!entry) return;
    this.pending.delete(content.id);
    if (content.ok) entry.resolve({ result: content.result, buffers: buffers ?? [] });
    else entry.reject(new RequestError(content.error ?? "request failed"));
  }

  /** The kernel is gone: fails what is pending and every later request with `reason`. */
  close(reason: string): void {
    this.closedReason = reason;
    this.failPending(reason);
  }

  dispose(): void {
    this.model.off("msg:custom", this.listener);
    this.failPending("widget closed");
  }

  private failPending(reason: string): void {
    for (const { reject } of this.pending.values()) reject(new RequestError(reason));
    this.pending.clear();
  }
}
