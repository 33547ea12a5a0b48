// Request/response with the kernel over the widget's custom messages (see torchlens_widgets/_channel.py).
// The frontend asks; each request carries an id and times out, so a dead kernel shows an error
// instead of an endless spinner. A kernel that is busy running cells answers once it is idle again
// (requests queue behind the cells): while it is busy, the clock does not run out.
//
// Every view of a widget has its own channel: a custom message from the kernel reaches every view of
// the model, so each request names its channel (a random id) and the kernel echoes it; a view takes
// only the replies to its own requests (two views of one widget both number their requests from 1).
//
// Replies carry binary buffers natively where the host passes them through (JupyterLab, Notebook 7,
// Voila), or as base64 text in the message where the host would carry them as JSON arrays of
// numbers (VS Code: ~3.6 bytes per byte); see host-transport.ts. Decoding is done here, so callers
// always get DataViews.
//
// Why not anywidget's experimental `command` API (as read in anywidget 0.11's source): a command that raises
// in Python sends nothing back, so the view could only time out, never show the kernel's error; its
// time-out is wall-clock (3 s by default), so a request queued behind a long cell fails although the
// kernel would answer; and nothing ends it when the kernel restarts. This channel has error replies,
// a clock that stops while the kernel is busy, and close() on a restart.
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

/** How the kernel should carry a reply's buffers to this view. */
export type BufferEncoding = "binary" | "base64";

interface WireResponse {
  type: "response";
  channel?: string;
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
  /** The reply's buffers as base64 text, when the request asked for "base64". */
  base64_buffers?: string[];
}

export class RequestError extends Error {}

/** The request failed because this view's channel was disposed (the view closed), not the kernel. */
export class ChannelDisposedError extends RequestError {}

function isResponse(content: unknown): content is WireResponse {
  return typeof content === "object" && content !== null && (content as WireResponse).type === "response";
}

/** A random id for one view's channel (crypto.randomUUID needs a secure context; this does not). */
function channelId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function decodeBase64Buffer(text: string): DataView {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return new DataView(bytes.buffer);
}

export class KernelChannel {
  /** This view's channel id, sent with every request and echoed in every reply. */
  readonly id = channelId();
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: Response<unknown>) => void; reject: (e: Error) => void }>();
  private readonly listener = (content: unknown, buffers: DataView[]) => this.receive(content, buffers);
  /** Set once the kernel is gone: every request fails at once with this reason. */
  private closedReason = "";

  /**
   * `kernelBusy` says whether the kernel is running a cell now (unknown: always false);
   * `encoding` is how replies should carry their buffers on this host.
   */
  constructor(
    private readonly model: CustomMessageModel,
    private readonly kernelBusy: () => boolean = () => false,
    readonly encoding: BufferEncoding = "binary",
  ) {
    model.on("msg:custom", this.listener);
  }

  request<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<Response<T>> {
    const id = ++this.nextId;
    if (this.closedReason) return Promise.reject(new RequestError(this.closedReason));
    const answered = new Promise<Response<T>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: Response<unknown>) => void, reject });
      const message: Record<string, unknown> = { type: "request", channel: this.id, id, method, params };
      if (this.encoding !== "binary") message.buffers = this.encoding;
      this.model.send(message);
    });
    // The clock stops while the kernel runs a cell: the request is queued behind it, not lost.
    return pausableDeadline(answered, () => !this.kernelBusy(), () => {
      this.pending.delete(id);
      return new RequestError(`The kernel did not answer '${method}' within ${Math.round(timeoutMs / 1000)} s. Is it still running? Re-run the cell.`);
    }, timeoutMs);
  }

  private receive(content: unknown, buffers: DataView[]): void {
    if (!isResponse(content) || content.channel !== this.id) return; // another view's reply
    const entry = this.pending.get(content.id);
    if (!entry) return;
    this.pending.delete(content.id);
    if (!content.ok) {
      entry.reject(new RequestError(content.error ?? "request failed"));
      return;
    }
    try {
      const carried = content.base64_buffers ? content.base64_buffers.map(decodeBase64Buffer) : buffers ?? [];
      entry.resolve({ result: content.result, buffers: carried });
    } catch (error) {
      entry.reject(new RequestError(`The kernel's reply to this view could not be decoded: ${String(error)}`));
    }
  }

  /** The kernel is gone: fails what is pending and every later request with `reason`. */
  close(reason: string): void {
    this.closedReason = reason;
    this.failPending(() => new RequestError(reason));
  }

  dispose(): void {
    this.model.off("msg:custom", this.listener);
    this.failPending(() => new ChannelDisposedError("widget closed"));
  }

  private failPending(error: () => Error): void {
    for (const { reject } of this.pending.values()) reject(error());
    this.pending.clear();
  }
}
