// What OpenCode's `read` tool returned, as a scripted model sees it in the next request.

/** The read tool's output ("N: text" per line) back to the file's lines. */
export function readLines(output: string): string[] {
  return output
    .split('\n')
    .map((l) => /^(\d+): (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m[2]!);
}
