// What an error says, for a status line, a notice or a frame's message (anything may be thrown).
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
