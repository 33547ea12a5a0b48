// Checks of what arrives from the kernel, before any view code reads it (js/kernel/protocol.ts's parsers use
// them): a reply of another shape throws ProtocolError, whose message names the remedy.

/** A reply that does not have the shape this protocol says (an older or newer kernel side). */
export class ProtocolError extends Error {}

export function fail(what: string, detail: string): never {
  throw new ProtocolError(
    `The kernel's ${what} is not what this widget understands (${detail}). Remedy: restart the kernel and re-run the cell, so the ` +
      "kernel and the page run the same torchlens-widgets version.",
  );
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function object(what: string, value: unknown): Json {
  if (!isObject(value)) fail(what, "not an object");
  return value;
}

export function string(what: string, value: Json, key: string): string {
  const field = value[key];
  if (typeof field !== "string") fail(what, `'${key}' is not text`);
  return field;
}

export function array(what: string, value: Json, key: string): unknown[] {
  const field = value[key];
  if (!Array.isArray(field)) fail(what, `'${key}' is not a list`);
  return field;
}

export function oneOf<T extends string>(what: string, value: Json, key: string, allowed: readonly T[]): T {
  const field = string(what, value, key);
  if (!(allowed as readonly string[]).includes(field)) fail(what, `'${key}' is ${JSON.stringify(field)}`);
  return field as T;
}
