// Binary helpers: the kernel sends gzip-compressed buffers.

export function viewBytes(view: DataView | ArrayBuffer | Uint8Array): Uint8Array {
  if (view instanceof Uint8Array) return view;
  if (view instanceof ArrayBuffer) return new Uint8Array(view);
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

export async function gunzip(data: DataView | ArrayBuffer | Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([viewBytes(data) as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function gunzipText(data: DataView | ArrayBuffer | Uint8Array): Promise<string> {
  return new TextDecoder().decode(await gunzip(data));
}

/** Bytes the kernel sent as base64 text (hosts that carry buffers as JSON, and saved files). */
export function decodeBase64(text: string): DataView {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return new DataView(bytes.buffer);
}
