// The benchmarks' HTTP client, waiting for a condition, and running work in rounds or with bounded concurrency.
import http from 'node:http';
import { log } from './output.mjs';

// ---------------------------------------------------------------------------------------------
// HTTP client: node:http with a keep-alive agent (cheaper than fetch on a busy machine).

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const freshAgent = new http.Agent({ keepAlive: false });

/** One request to 127.0.0.1; resolves {status, headers, text, json(), ms}. Never rejects on HTTP status. */
export function request(method, url, { headers = {}, body, timeoutMs = 30_000, keepAlive = true } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      url,
      {
        method,
        agent: keepAlive ? agent : freshAgent,
        headers: payload === undefined ? headers : { ...headers, 'Content-Length': payload.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text,
            json: () => JSON.parse(text),
            ms: performance.now() - started,
          });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls until `check()` is truthy; bounded by `timeoutMs`. */
export async function waitUntil(check, { timeoutMs = 30_000, intervalMs = 10, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() <= deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `rounds` rounds of `load(variant)` over every variant, the order rotated each round so that no variant always
 * runs first or last; each result is logged with `describe(variant, result)`. Results by `variant.key`, in round order.
 */
export async function rotatedRounds(variants, rounds, load, describe) {
  const results = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length];
      const result = await load(variant);
      results[variant.key].push(result);
      log(`round ${round + 1}/${rounds} ${variant.key}: ${describe(variant, result)}`);
    }
  }
  return results;
}

/** Runs `task(item, index)` over `items` with at most `concurrency` at a time; results in order. */
export async function pool(items, concurrency, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
