import { describe, expect, it, vi } from "vitest";
import { lossMessage, watchKernel } from "../../../js/kernel/kernel-watch";

/** A Lumino-like signal: connect/disconnect slots, emit to the connected ones. */
class FakeSignal<T> {
  slots = new Set<(sender: unknown, value: T) => void>();
  connect(slot: (sender: unknown, value: T) => void) {
    this.slots.add(slot);
  }
  disconnect(slot: (sender: unknown, value: T) => void) {
    this.slots.delete(slot);
  }
  emit(value: T) {
    for (const slot of [...this.slots]) slot(this, value);
  }
}

function fakeKernel(status = "idle") {
  return {
    status,
    connectionStatus: "connected",
    statusChanged: new FakeSignal<string>(),
    connectionStatusChanged: new FakeSignal<string>(),
  };
}

describe("watchKernel", () => {
  it("reports a restart once, and ignores busy/idle (an interrupt keeps the comm)", () => {
    const kernel = fakeKernel();
    const onLost = vi.fn();
    watchKernel({ kernel }, onLost, vi.fn());
    kernel.statusChanged.emit("busy");
    kernel.statusChanged.emit("idle");
    expect(onLost).not.toHaveBeenCalled();
    kernel.statusChanged.emit("restarting");
    kernel.statusChanged.emit("autorestarting");
    kernel.statusChanged.emit("dead");
    expect(onLost.mock.calls).toEqual([["restarted"]]);
  });

  it("reports a kernel that is already dead when the view is drawn", () => {
    const onLost = vi.fn();
    watchKernel({ kernel: fakeKernel("dead") }, onLost, vi.fn());
    expect(onLost).toHaveBeenCalledWith("dead");
  });

  it("passes connection drops and recoveries through, and stops watching when asked", () => {
    const kernel = fakeKernel();
    const onConnection = vi.fn();
    const stop = watchKernel({ kernel }, vi.fn(), onConnection);
    kernel.connectionStatusChanged.emit("connecting");
    kernel.connectionStatusChanged.emit("connected");
    expect(onConnection.mock.calls).toEqual([[false], [true]]);
    stop();
    expect(kernel.statusChanged.slots.size + kernel.connectionStatusChanged.slots.size).toBe(0);
  });

  it("reports a connection its frontend disposed as lost for good (VS Code on a restart)", () => {
    const kernel = { ...fakeKernel(), isDisposed: false };
    const onLost = vi.fn();
    const onConnection = vi.fn();
    watchKernel({ kernel }, onLost, onConnection);
    kernel.connectionStatusChanged.emit("connecting"); // a blip: comes back
    kernel.isDisposed = true;
    kernel.connectionStatusChanged.emit("disconnected");
    kernel.connectionStatusChanged.emit("connected");
    expect(onConnection.mock.calls).toEqual([[false]]);
    expect(onLost.mock.calls).toEqual([["connection-lost"]]);
  });

  it("does nothing where the frontend exposes no kernel", () => {
    const onLost = vi.fn();
    expect(() => watchKernel({}, onLost, vi.fn())()).not.toThrow();
    expect(() => watchKernel(undefined, onLost, vi.fn())()).not.toThrow();
    expect(onLost).not.toHaveBeenCalled();
  });

  it("tells the user what to do", () => {
    expect(lossMessage("restarted")).toMatch(/restarted.*Re-run the cell/);
  });
});
