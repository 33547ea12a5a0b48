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
// always get DataViews. The kernel answers as text whatever was asked where binary frames cannot reach
// the page (a kernel launched through a Jupyter Kernel Gateway, whose relay in jupyter_server decodes
// every binary frame as UTF-8 and dies at the first; or the user's setting); the reply says so
// (`base64_reason`) and this channel asks for text from then on.
//
// Where the kernel knows every view is about to ask (a recolour: the `_colour_rev` it sets next), it
// sends the reply first, to all of them; the channel keeps the latest of each method until its view takes
// it (`takeAhead`) or asks anew, and tells the view it landed (`onAhead`: a recolour starts then, not
// at the trait change).
//
// Where no reply arrives at all, the view is told (`onSilence`) and a time-out names the remedy: a relay
// the kernel could not detect loses the replies, and the page may even see the kernel busy for good
// (its "idle" never arrives), so the busy-paused clock alone would wait in silence.
//
// Why this is not anywidget's experimental `command` API: docs/ARCHITECTURE.md, "The channel".
import { decodeBase64 } from "./bytes";
import { pausableDeadline } from "../shared/deadline";
import { parseAhead, parseResponse, type RequestMessage, type RequestMethod } from "./protocol";

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

export class RequestError extends Error {}

/** The request failed because this view's channel was disposed (the view closed), not the kernel. */
export class ChannelDisposedError extends RequestError {}

/** Wall-clock time without any reply to a pending request after which the view says so. */
export const SILENCE_MS = 30_000;

/** What a user does when the kernel's replies do not reach the page (named in the view's messages). */
export const TEXT_TRANSPORT_REMEDY =
  'Remedy: set TORCHLENS_WIDGETS_TRANSPORT=text in the kernel\'s environment, or run tlw.set_transport("text") in a cell, then re-run this cell.';

export interface ChannelHooks {
  /** The encoding replies now arrive in (the kernel may answer text where binary was asked). */
  onEncoding?: (encoding: BufferEncoding) => void;
  /** No reply for SILENCE_MS of wall-clock time while requests are pending: what to tell the user. */
  onSilence?: (text: string) => void;
  /**
   * A reply the kernel sent ahead landed: the view may use it at once, before the trait change that
   * announces it (which comes in the kernel's next message).
   */
  onAhead?: (method: RequestMethod) => void;
}

/** A random id for one view's channel (crypto.randomUUID needs a secure context; this does not). */
function channelId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class KernelChannel {
  /** This view's channel id, sent with every request and echoed in every reply. */
  readonly id = channelId();
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: Response<unknown>) => void; reject: (e: Error) => void }>();
  private readonly listener = (content: unknown, buffers: DataView[]) => this.receive(content, buffers);
  /** Set once the kernel is gone: every request fails at once with this reason. */
  private closedReason = "";
  private asked: BufferEncoding;
  /** When a reply (or the first pending request) last arrived (wall clock), and the silence watch. */
  private lastHeard = 0;
  private silenceTimer: ReturnType<typeof setInterval> | undefined;
  private silenceSaid = false;
  /** The latest reply of each method the kernel sent ahead, until taken. */
  private readonly ahead = new Map<RequestMethod, Response<unknown>>();

  /**
   * `kernelBusy` says whether the kernel is running a cell now (unknown: always false);
   * `encoding` is how replies should carry their buffers on this host.
   */
  constructor(
    private readonly model: CustomMessageModel,
    private readonly kernelBusy: () => boolean = () => false,
    encoding: BufferEncoding = "binary",
    private readonly hooks: ChannelHooks = {},
  ) {
    this.asked = encoding;
    model.on("msg:custom", this.listener);
  }

  /** How replies carry their buffers: the host's need, or text once the kernel answered so. */
  get encoding(): BufferEncoding {
    return this.asked;
  }

  /** The raw reply to `method`; callers check its result with the parser of js/kernel/protocol.ts. */
  request(method: RequestMethod, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<Response<unknown>> {
    const id = ++this.nextId;
    if (this.closedReason) return Promise.reject(new RequestError(this.closedReason));
    const answered = new Promise<Response<unknown>>((resolve, reject) => {
      if (this.pending.size === 0) this.lastHeard = Date.now();
      this.pending.set(id, { resolve, reject });
      this.watchSilence();
      const message: RequestMessage = { type: "request", channel: this.id, id, method, params };
      if (this.encoding !== "binary") message.buffers = this.encoding;
      this.model.send(message);
    });
    // The clock stops while the kernel runs a cell: the request is queued behind it, not lost.
    return pausableDeadline(
      answered,
      () => !this.kernelBusy(),
      () => {
        this.pending.delete(id);
        if (this.pending.size === 0) this.stopSilenceWatch();
        const text = `The kernel did not answer '${method}' within ${Math.round(timeoutMs / 1000)} s while idle.`;
        // Already text: no relay lost a binary frame; else a relay the kernel did not detect may have.
        const why =
          this.asked === "base64"
            ? " Is it still running? Re-run the cell."
            : ` If it is running, its replies do not reach this page (a relay such as a Jupyter Kernel Gateway that passes no binary frames). ${TEXT_TRANSPORT_REMEDY}`;
        return new RequestError(text + why);
      },
      timeoutMs,
    );
  }

  /** The reply to `method` the kernel sent ahead, if one came since the last taken (taken: gone). */
  takeAhead(method: RequestMethod): Response<unknown> | undefined {
    const reply = this.ahead.get(method);
    this.ahead.delete(method);
    return reply;
  }

  /** The reply to `method` the kernel sent ahead, left for takeAhead(). */
  peekAhead(method: RequestMethod): Response<unknown> | undefined {
    return this.ahead.get(method);
  }

  private receive(content: unknown, buffers: DataView[]): void {
    const ahead = parseAhead(content);
    if (ahead) {
      try {
        const carried = ahead.base64_buffers ? ahead.base64_buffers.map(decodeBase64) : (buffers ?? []);
        this.ahead.set(ahead.method, { result: ahead.result, buffers: carried });
      } catch {
        this.ahead.delete(ahead.method); // undecodable: the view asks, and hears why
        return;
      }
      this.hooks.onAhead?.(ahead.method);
      return;
    }
    const response = parseResponse(content);
    if (!response || response.channel !== this.id) return; // another view's reply
    const entry = this.pending.get(response.id);
    if (!entry) return;
    this.pending.delete(response.id);
    this.heard();
    if (response.ok && response.base64_reason && response.base64_reason !== "asked" && this.asked !== "base64") {
      this.asked = "base64"; // the kernel knows binary frames cannot reach the page: ask for text from now on
      this.hooks.onEncoding?.(this.asked);
    }
    if (!response.ok) {
      entry.reject(new RequestError(response.error));
      return;
    }
    try {
      const carried = response.base64_buffers ? response.base64_buffers.map(decodeBase64) : (buffers ?? []);
      entry.resolve({ result: response.result, buffers: carried });
    } catch (error) {
      entry.reject(new RequestError(`The kernel's reply to this view could not be decoded: ${String(error)}`));
    }
  }

  private heard(): void {
    this.lastHeard = Date.now();
    this.silenceSaid = false;
    if (this.pending.size === 0) this.stopSilenceWatch();
  }

  private watchSilence(): void {
    if (this.silenceTimer !== undefined || !this.hooks.onSilence) return;
    this.silenceTimer = setInterval(() => {
      if (this.pending.size === 0 || this.silenceSaid || Date.now() - this.lastHeard < SILENCE_MS) return;
      this.silenceSaid = true;
      const seconds = Math.round((Date.now() - this.lastHeard) / 1000);
      const remedy =
        this.asked === "base64"
          ? "Is the kernel still running?"
          : `If no cell is running, the kernel's replies do not reach this page (a relay such as a Jupyter Kernel Gateway that passes no binary frames). ${TEXT_TRANSPORT_REMEDY}`;
      this.hooks.onSilence?.(`No reply from the kernel for ${seconds} s. ${remedy}`);
    }, 1_000);
  }

  private stopSilenceWatch(): void {
    clearInterval(this.silenceTimer);
    this.silenceTimer = undefined;
  }

  /** The kernel is gone: fails what is pending and every later request with `reason`. */
  close(reason: string): void {
    this.closedReason = reason;
    this.failPending(() => new RequestError(reason));
  }

  dispose(): void {
    this.model.off("msg:custom", this.listener);
    this.ahead.clear();
    this.failPending(() => new ChannelDisposedError("widget closed"));
  }

  private failPending(error: () => Error): void {
    for (const { reject } of this.pending.values()) reject(error());
    this.pending.clear();
    this.stopSilenceWatch();
  }
}
