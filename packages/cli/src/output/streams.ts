/** Where a command writes: stdout for results, stderr for progress and notes. Tests pass their own. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** True when results go to a terminal (progress bars only then). */
  readonly interactive: boolean;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  get interactive() {
    return process.stdout.isTTY === true;
  },
};

/** An output that keeps everything, for tests and for commands that print only at the end. */
export function bufferedOutput(interactive = false): Output & { readonly stdout: string[]; readonly stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    interactive,
    out: (text) => stdout.push(text.endsWith('\n') ? text.slice(0, -1) : text),
    err: (text) => stderr.push(text.endsWith('\n') ? text.slice(0, -1) : text),
  };
}
