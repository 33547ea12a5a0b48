// What the page side of every viewer frame does alike: a srcdoc frame in the cell, its postMessage
// traffic (only its own frame is heard), the errors it reported while starting, and the selection
// in both directions (a select before the frame can take it waits; a selection reaches the kernel only
// if the user made it: each bridge tells the user's from the viewer answering our select).
// js/model-explorer/bridge.ts and js/netron/bridge.ts speak their frame's messages on top of it.

declare global {
  interface Element {
    /** Moves a node keeping its state: a frame is not reloaded (Chromium 133 and later). */
    moveBefore?(node: Node, child: Node | null): void;
  }
}

/** Whether this browser moves a frame in the page without reloading it. */
export const framesMove = (): boolean => typeof Element.prototype.moveBefore === "function";

/** A message from a frame: every one carries `cmd`. */
export interface FrameMessage {
  cmd?: unknown;
  [key: string]: unknown;
}

/** A frame's answer to an image request of the page's (its `id`): a PNG, or why there is none. */
export interface BlobReply {
  id: number;
  blob: Blob | null;
  error?: string;
}

export interface FrameBridgeOptions {
  /** The frame's title (what a screen reader says). */
  title: string;
  /** Called with a node id the user selected in the frame. */
  onSelect: (nodeId: string) => void;
}

/** How many of a frame's reported errors are kept to explain a failed draw. */
export const MAX_KEPT_ERRORS = 5;

/** How often one select is asked again after a late answer to an older one undid it. */
export const MAX_REASKS = 3;

export abstract class FrameBridge {
  readonly iframe: HTMLIFrameElement;
  /** Resolves with milliseconds until the first graph is drawn; rejects if it cannot be. */
  abstract readonly rendered: Promise<number>;
  private readonly errors: string[] = [];
  private errorsNotKept = 0;
  private readonly listener = (event: MessageEvent) => this.hear(event);
  private lastSelected = "";
  /** How often the viewer was asked again for `lastSelected` after an older answer undid it. */
  private reasked = 0;
  private pendingSelect = "";
  private selectable = false;
  private readonly blobRequests = new Map<number, (reply: BlobReply) => void>();
  private nextBlobRequest = 0;

  protected constructor(private bridgeOptions: FrameBridgeOptions) {
    this.iframe = document.createElement("iframe");
    this.iframe.className = "tlw-frame";
    this.iframe.title = bridgeOptions.title;
    // sandbox="allow-scripts": the frame gets an opaque origin, isolated from the notebook's.
    this.iframe.setAttribute("sandbox", "allow-scripts");
  }

  /** Errors the viewer reported while starting (shown if it never draws). */
  get startupErrors(): readonly string[] {
    return this.errorsNotKept ? [...this.errors, `and ${this.errorsNotKept} more`] : this.errors;
  }

  /**
   * An error the viewer reported. Only the first few are kept (the first is the likeliest cause): a
   * frame that logs an error per redraw for hours must not grow the page's memory with them.
   */
  protected noteStartupError(text: string): void {
    if (this.errors.length < MAX_KEPT_ERRORS) this.errors.push(text);
    else this.errorsNotKept += 1;
  }

  /** Selects a node in the frame (now, or once the frame can take it). */
  select(nodeId: string): void {
    if (!nodeId || nodeId === this.lastSelected) return;
    if (!this.selectable) {
      this.pendingSelect = nodeId;
      return;
    }
    this.lastSelected = nodeId;
    this.reasked = 0;
    this.postSelect(nodeId);
  }

  dispose(): void {
    window.removeEventListener("message", this.listener);
    this.iframe.remove();
  }

  /** Loads `html` into the frame and puts it in `container`. */
  protected start(container: HTMLElement, html: string): void {
    window.addEventListener("message", this.listener);
    this.iframe.srcdoc = html;
    container.appendChild(this.iframe);
  }

  /** Moves the frame into `container` without reloading it (where the browser can move it so). */
  protected moveTo(container: HTMLElement, onSelect: (nodeId: string) => void): void {
    if (!container.moveBefore) throw new Error("This browser cannot move a frame without reloading it.");
    container.moveBefore(this.iframe, null);
    this.bridgeOptions = { ...this.bridgeOptions, onSelect };
  }

  /** The frame can take selections now: the one asked for meanwhile is sent. */
  protected becomeSelectable(): void {
    this.selectable = true;
    const nodeId = this.pendingSelect;
    this.pendingSelect = "";
    if (nodeId) this.select(nodeId);
  }

  /** A new graph replaces the one on screen: nothing is selected in it yet. */
  protected forgetSelection(): void {
    this.lastSelected = "";
    this.reasked = 0;
  }

  /**
   * The user selected `nodeId` in the frame (the bridge has told it from an answer to our select: a late
   * answer passed on would undo a newer select of the kernel's): passed on, unless it is selected already.
   */
  protected selectedInFrame(nodeId: string): void {
    if (!nodeId || nodeId === this.lastSelected) return;
    this.lastSelected = nodeId;
    this.reasked = 0;
    this.bridgeOptions.onSelect(nodeId);
  }

  /**
   * The viewer selected `nodeId` answering a select of ours. A viewer that must first reveal a node
   * (lay out the layers around it) answers after a newer select of a node already on screen, which
   * it answered at once: the older answer then undoes the newer select. Asked again (a few times at
   * most, should the viewer keep answering otherwise), the newer one is what the viewer shows.
   */
  protected answeredSelect(nodeId: string): void {
    if (!nodeId || !this.lastSelected || nodeId === this.lastSelected) return;
    if (this.reasked >= MAX_REASKS) return;
    this.reasked += 1;
    this.postSelect(this.lastSelected);
  }

  /**
   * Posts to the frame's window only. The sandboxed frame's origin is opaque and no target origin can
   * name it: "*" (the frame checks that messages come from its parent, with this page's origin).
   */
  protected post(message: FrameMessage, transfer: Transferable[] = []): void {
    this.iframe.contentWindow?.postMessage(message, "*", transfer);
  }

  /** Asks the frame for an image (`{cmd, id}`); its BlobReply, passed to settleBlob(), settles the promise. */
  protected requestBlob(cmd: string): Promise<Blob> {
    const id = ++this.nextBlobRequest;
    return new Promise((resolve, reject) => {
      this.blobRequests.set(id, (reply) => (reply.blob ? resolve(reply.blob) : reject(new Error(reply.error ?? "no image"))));
      this.post({ cmd, id });
    });
  }

  /** The frame answered an image request. */
  protected settleBlob(reply: BlobReply): void {
    this.blobRequests.get(reply.id)?.(reply);
    this.blobRequests.delete(reply.id);
  }

  protected abstract postSelect(nodeId: string): void;

  /** A message from this bridge's own frame. */
  protected abstract receive(message: FrameMessage): void;

  private hear(event: MessageEvent): void {
    // Only our own frame: every other frame on the page (other widgets, a frame in another output)
    // is ignored. The sandboxed frame's origin is opaque, "null", which is all the origin can say (the
    // source check tells it apart from other opaque frames).
    if (event.source !== this.iframe.contentWindow || event.origin !== "null") return;
    if (typeof event.data !== "object" || !event.data) return;
    this.receive(event.data as FrameMessage);
  }
}
