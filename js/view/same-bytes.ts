// What tells an overlay switch from a new graph, in either viewer: the kernel sends a cached export's very
// bytes again, so equal bytes mean the graph on screen can be recoloured in place (js/view/viewers.ts).

/** Own copies of a reply's buffers (the views may share the message's memory). */
export function copies(buffers: DataView[]): Uint8Array[] {
  return buffers.map((view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice());
}

/** Whether `buffers` hold exactly the bytes of `shown` (the kernel sends a cached artifact's same bytes). */
export function sameBytes(shown: Uint8Array[], buffers: DataView[]): boolean {
  if (shown.length === 0 || shown.length !== buffers.length) return false;
  return buffers.every((view, i) => {
    const before = shown[i];
    if (!before || before.length !== view.byteLength) return false;
    const next = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let k = 0; k < next.length; k++) if (next[k] !== before[k]) return false;
    return true;
  });
}
