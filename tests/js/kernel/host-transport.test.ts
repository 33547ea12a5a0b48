import { describe, expect, it } from "vitest";
import { bufferEncodingFor } from "../../../js/kernel/host-transport";

class NativeSocket {}
class ProxySocket {}

describe("bufferEncodingFor", () => {
  const withNative = <T>(run: () => T): T => {
    const holder = globalThis as { WebSocket?: unknown };
    const saved = holder.WebSocket;
    holder.WebSocket = NativeSocket;
    try {
      return run();
    } finally {
      holder.WebSocket = saved;
    }
  };

  it("keeps binary buffers on a kernel connection over the page's own WebSocket (JupyterLab)", () => {
    const manager = { kernel: { serverSettings: { wsUrl: "ws://127.0.0.1:8888/", WebSocket: NativeSocket } } };
    expect(withNative(() => bufferEncodingFor(manager))).toBe("binary");
  });

  it("asks for base64 on VS Code's webview kernel (a stand-in socket relayed by postMessage)", () => {
    const manager = { kernel: { serverSettings: { wsUrl: "BOGUS_PVSC", WebSocket: ProxySocket } } };
    expect(withNative(() => bufferEncodingFor(manager))).toBe("base64");
  });

  it("asks for base64 whenever the kernel's socket is not the page's WebSocket", () => {
    const manager = { kernel: { serverSettings: { wsUrl: "wss://example.invalid/", WebSocket: ProxySocket } } };
    expect(withNative(() => bufferEncodingFor(manager))).toBe("base64");
  });

  it("keeps binary where there is no Jupyter kernel connection to judge (a saved file, another host)", () => {
    expect(bufferEncodingFor(undefined)).toBe("binary");
    expect(bufferEncodingFor({ kernel: {} })).toBe("binary");
  });
});
