// Statistics (percentiles, median), number formatting, markdown tables, options and a benchmark's printed result.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanupAll } from './processes.mjs';

// ---------------------------------------------------------------------------------------------
// Statistics and output

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
/** The middle value (the mean of the two middle values for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Number formatting: `digits` decimals below 10, fewer above, thousands separated. */
export function fmt(value, digits = 2) {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  if (typeof value !== 'number') return String(value);
  const abs = Math.abs(value);
  const decimals = Number.isInteger(value) || abs >= 1000 ? 0 : abs >= 100 ? Math.min(digits, 0) : abs >= 10 ? Math.min(digits, 1) : digits;
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** A markdown table (pipe-delimited, aligned), ready to paste into BENCHMARKS.md. */
export function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = header.map((_, c) => Math.max(3, ...cells.map((row) => (row[c] ?? '').length)));
  const line = (row) => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join('\n');
}

/** A target line: {name, value, target, ok}. `ok` undefined means "not judged" (informational). */
export const target = (name, value, targetText, ok) => ({ name, value, target: targetText, ok });

/** Standalone mode: `node scripts/bench/<name>.mjs [--quick] ...` runs that one benchmark. */
export async function runStandalone(moduleUrl, run) {
  if (!process.argv[1] || pathToFileURL(path.resolve(process.argv[1])).href !== moduleUrl) return;
  const options = parseOptions(process.argv.slice(2));
  let failed = false;
  try {
    const result = await run(options);
    printResult(result);
  } catch (error) {
    failed = true;
    console.error(error?.stack ?? error);
  } finally {
    await cleanupAll();
  }
  process.exit(failed ? 1 : 0);
}

/** --quick, --only a,b, --soak [minutes], --profile. */
export function parseOptions(argv) {
  const options = { quick: false, only: undefined, soakMinutes: undefined, profile: false, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--profile') options.profile = true;
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg.startsWith('--only=')) options.only = arg.slice(7).split(',').filter(Boolean);
    else if (arg === '--json') options.json = argv[++i];
    // history's open-loop mode (scripts/bench/history.mjs): decisions per second, seconds per run, pdp replicas,
    // events of today recorded beforehand, other policies deployed beside.
    else if (arg === '--open-loop') options.openLoop = true;
    else if (['--rate', '--seconds', '--replicas', '--preload', '--policies'].includes(arg)) {
      const value = Number(argv[++i]);
      if (!(value > 0)) throw new Error(`\`${arg}\` needs a positive number`);
      options[arg.slice(2)] = value;
    }
    else if (arg === '--soak') {
      const next = argv[i + 1];
      if (next !== undefined && /^\d+(\.\d+)?$/.test(next)) {
        options.soakMinutes = Number(next);
        i++;
      } else options.soakMinutes = null; // default: 10, or 0.5 with --quick
    } else if (arg.startsWith('--soak=')) options.soakMinutes = Number(arg.slice(7));
    else if (arg === '--help' || arg === '-h') options.help = true;
    else throw new Error(`unknown option \`${arg}\``);
  }
  return options;
}

/** Prints a benchmark's result: its tables, its targets, its notes. */
export function printResult(result) {
  console.log(`\n## ${result.title}\n`);
  for (const block of result.tables ?? []) {
    if (block.caption) console.log(`${block.caption}\n`);
    console.log(table(block.header, block.rows));
    console.log('');
  }
  if (result.targets?.length) {
    console.log(
      table(
        ['target', 'measured', 'wanted', 'met'],
        result.targets.map((t) => [t.name, t.value, t.target, t.ok === undefined ? 'info' : t.ok ? 'yes' : 'NO']),
      ),
    );
    console.log('');
  }
  for (const note of result.notes ?? []) console.log(`- ${note}`);
}


export const log = (message) => console.log(`  · ${message}`);
