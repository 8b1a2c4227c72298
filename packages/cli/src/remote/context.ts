import { readFileSync } from 'node:fs';

/**
 * What a remote command needs from its surroundings. The program passes the real process; tests pass captured
 * streams, their own environment and clock, so commands run in-process without touching `process.exitCode`.
 */
export interface RemoteContext {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The whole of standard input, read when a command asks for it (a secret, an event given as `-`). */
  readStdin: () => Promise<string>;
  now: () => number;
  setExitCode: (code: number) => void;
}

async function readAllStdin(): Promise<string> {
  if (process.stdin.isTTY) return readFileSync(0, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export function processContext(): RemoteContext {
  return {
    env: process.env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    readStdin: readAllStdin,
    now: () => Date.now(),
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}
