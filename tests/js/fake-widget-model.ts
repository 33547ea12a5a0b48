// A stand-in for an anywidget model with a kernel behind it: traits, change events and custom
// messages, where the test plays the kernel (it reads what was sent and answers it).
import { gzipSync } from "node:zlib";
import { pageGlobalKey } from "../../js/shared/page-globals";

// biome-ignore lint/suspicious/noExplicitAny: Backbone-style handlers of any signature
type Handler = (...args: any[]) => void;

export interface SentRequest {
  type: string;
  channel: string;
  id: number;
  method: string;
  params: Record<string, unknown>;
  buffers?: string;
}

export class FakeWidgetModel {
  readonly sent: SentRequest[] = [];
  private readonly handlers = new Map<string, Set<Handler>>();

  constructor(private readonly state: Record<string, unknown> = {}) {}

  get(name: string): never {
    return this.state[name] as never;
  }

  /** A trait change from the kernel. */
  set(name: string, value: unknown): void {
    this.state[name] = value;
    this.emit(`change:${name}`);
  }

  on(event: string, handler: Handler): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
  }

  off(event: string, handler: Handler): void {
    this.handlers.get(event)?.delete(handler);
  }

  send(content: unknown): void {
    this.sent.push(content as SentRequest);
  }

  requests(method: string): SentRequest[] {
    return this.sent.filter((request) => request.method === method);
  }

  /** The kernel's answer to `request`, as every view of the model receives it. */
  answer(request: SentRequest, result: unknown, buffers: DataView[] = []): void {
    this.emit("msg:custom", { type: "response", channel: request.channel, id: request.id, ok: true, result }, buffers);
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const handler of [...(this.handlers.get(event) ?? [])]) handler(...args);
  }
}

export function gzipped(text: string): DataView {
  const bytes = gzipSync(Buffer.from(text));
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Forgets the page's asset cache (it lives on globalThis for the page's life). */
export function clearPageCache(): void {
  delete (globalThis as Record<string, unknown>)[pageGlobalKey("Assets")];
}
