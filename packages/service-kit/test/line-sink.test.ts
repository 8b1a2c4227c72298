import { execFile, execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as ts from 'typescript';
import { createLineSink, createLogger, writeInfoLine } from '@custos/service-kit';
import { waitFor } from '@custos/test-kit';

const flushed = (sink: { flush(cb: (error?: Error) => void): void }) =>
  new Promise<void>((resolve, reject) => sink.flush((error) => (error ? reject(error) : resolve())));

describe('line sink (writes on a worker thread)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'custos-line-sink-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes every line, in order and byte for byte, also across the end of its ring', async () => {
    const file = path.join(dir, 'out.log');
    const fd = openSync(file, 'w');
    // A ring of 1 KiB and batches that fit in it: the lines wrap around the end of the ring many times,
    // multi-byte characters included (é is 2 bytes in UTF-8, 🙂 is 4).
    const sink = createLineSink(fd, { capacityBytes: 1024 });
    const expected: string[] = [];
    for (let batch = 0; batch < 60; batch++) {
      let bytes = 0;
      for (let i = 0; bytes < 700; i++) {
        const line = `{"batch":${batch},"i":${i},"text":"${'é'.repeat(i % 7)}${'🙂'.repeat(i % 3)}${'x'.repeat((batch * 7 + i) % 40)}"}\n`;
        bytes += Buffer.byteLength(line);
        expect(sink.write(line)).toBe(true);
        expected.push(line);
      }
      await flushed(sink);
    }
    closeSync(fd);
    expect(sink.dropped).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(expected.join(''));
  });

  it('writes lines without a flush whether they come at a steady pace or after the worker went to sleep', async () => {
    const file = path.join(dir, 'paced.log');
    const fd = openSync(file, 'w');
    const sink = createLineSink(fd);
    const expected: string[] = [];
    const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Idle pauses of 0, 5 and 150 ms between lines (its naps are 50 ms): the worker is awake gathering, napping once
    // more before it sleeps, or asleep until this writer wakes it. The pause is the scenario; each line is waited for
    // by its content.
    for (const pause of [0, 5, 150, 0, 150, 5, 150]) {
      await idle(pause);
      const line = `{"after":${pause},"n":${expected.length}}\n`;
      expect(sink.write(line)).toBe(true);
      expected.push(line);
      await waitFor(() => readFileSync(file, 'utf8') === expected.join(''), { timeoutMs: 5000 });
    }
    closeSync(fd);
  });

  it('writes a gathered batch without waiting for the end of its nap', async () => {
    const file = path.join(dir, 'batch.log');
    const fd = openSync(file, 'w');
    // A nap far longer than the wait below: only the wake-up at a full batch (64 KiB) can bring these lines out.
    const sink = createLineSink(fd, { napMs: 600_000 });
    // A first line, flushed: the worker has started and written, and naps from then on.
    const first = '{"first":true}\n';
    const expected = [first];
    expect(sink.write(first)).toBe(true);
    await flushed(sink);
    let bytes = 0;
    for (let i = 0; bytes < 70 * 1024; i++) {
      const line = `{"i":${i},"pad":"${'b'.repeat(100)}"}\n`;
      expect(sink.write(line)).toBe(true);
      expected.push(line);
      bytes += line.length;
    }
    await waitFor(() => readFileSync(file, 'utf8').length >= 64 * 1024, { timeoutMs: 10_000, what: 'the first batch' });
    expect(expected.join('').startsWith(readFileSync(file, 'utf8'))).toBe(true);
    await flushed(sink);
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe(expected.join(''));
  });

  it('drops and counts lines beyond its bound while the reader stalls, then reports how many', async () => {
    // A FIFO opened read-write: writes fill the pipe's buffer and then block, as stdout does when the
    // process reading it stops reading.
    const fifo = path.join(dir, 'stdout.fifo');
    execFileSync('mkfifo', [fifo]);
    const writeFd = openSync(fifo, 'r+');
    const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const sink = createLineSink(writeFd, { capacityBytes: 16 * 1024, service: 'test' });
    const accepted: string[] = [];
    let refused = 0;
    // 2 MB of lines: far more than the pipe's buffer and the ring hold together.
    for (let i = 0; i < 20_000; i++) {
      const line = `{"i":${i},"pad":"${'p'.repeat(80)}"}\n`;
      if (sink.write(line)) accepted.push(line);
      else refused++;
    }
    expect(refused).toBeGreaterThan(0);
    expect(sink.dropped).toBe(refused);

    let received = '';
    const chunk = Buffer.alloc(64 * 1024);
    const drain = () => {
      for (;;) {
        let n: number;
        try {
          n = readSync(readFd, chunk, 0, chunk.length, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
          throw error;
        }
        if (n === 0) return;
        received += chunk.toString('utf8', 0, n);
      }
    };
    // Once the reader reads again, everything accepted arrives; the next line is preceded by the report.
    await waitFor(
      () => {
        drain();
        return received.length >= accepted.join('').length;
      },
      { what: 'the accepted lines', intervalMs: 5 },
    );
    expect(sink.write('{"after":true}\n')).toBe(true);
    await waitFor(
      () => {
        drain();
        return received.endsWith('{"after":true}\n');
      },
      { what: 'the line after the drops', intervalMs: 5 },
    );
    closeSync(writeFd);
    closeSync(readFd);

    // Each line that fits after drops is preceded by a report of the drops since the last report.
    const lines = received.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('{"after":true}');
    const reports = lines.filter((l) => l.includes('"msg":"log lines dropped"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const data = lines.slice(0, -1).filter((l) => !l.includes('"msg":"log lines dropped"'));
    expect(data.map((l) => `${l}\n`)).toEqual(accepted);
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) {
      expect(report).toMatchObject({ level: 'warn', service: 'test', msg: 'log lines dropped' });
      expect(typeof report.time).toBe('string');
    }
    expect(reports.reduce((sum, r) => sum + Number(r.dropped), 0)).toBe(refused);
  });

  it('drains what is still in the ring when the process exits', async () => {
    // A child process that writes 20,000 lines to its stdout through the sink and exits at once,
    // without flushing: the exit hook must drain the ring before the process is gone.
    const source = ts.transpileModule(readFileSync(path.join(__dirname, '..', 'src', 'observability', 'line-sink.ts'), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const moduleFile = path.join(dir, 'line-sink.js');
    writeFileSync(moduleFile, source);
    const program = `
      const { createLineSink } = require(${JSON.stringify(moduleFile)});
      const sink = createLineSink(1);
      for (let i = 0; i < 20000; i++) sink.write('line ' + i + '\\n');
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', program], { maxBuffer: 16 * 1024 * 1024 });
    const lines = stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(20_000);
    expect(lines[0]).toBe('line 0');
    expect(lines[19_999]).toBe('line 19999');
    expect(lines.every((l, i) => l === `line ${i}`)).toBe(true);
  });
});

describe('writeInfoLine', () => {
  it('writes the line pino writes for the same fields, and nothing above info', () => {
    const written: string[] = [];
    const logger = createLogger('svc', 'info', { write: (line: string) => void written.push(line) });
    const child = logger.child({ log: 'audit' });
    child.info({ id: 'a"b', n: 3, list: ['x', 'é'] }, 'did it');
    writeInfoLine(child, 'did it', `"id":${JSON.stringify('a"b')},"n":3,"list":["x","é"]`);
    expect(written).toHaveLength(2);
    const [viaPino, direct] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(direct ?? {})).toEqual(['level', 'time', 'service', 'log', 'id', 'n', 'list', 'msg']);
    expect({ ...direct, time: undefined }).toEqual({ ...viaPino, time: undefined });
    expect(written[1]?.endsWith('}\n')).toBe(true);

    child.level = 'warn';
    writeInfoLine(child, 'quiet', '"n":1');
    expect(written).toHaveLength(2);
  });
});
