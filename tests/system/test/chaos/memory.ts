import { readFileSync } from 'node:fs';
import type { Slot } from './services';

function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples every live pdp's RSS every 2 s, per instance (the first sample and the latest); returns the stop. */
export function sampleRss(pdps: Slot[]): () => void {
  const sampler = setInterval(() => {
    for (const slot of pdps) {
      if (slot.down) continue;
      const rss = rssOf(slot.service.process.pid);
      if (rss === undefined) continue;
      const seen = slot.rss.get(slot.instance);
      if (seen === undefined) slot.rss.set(slot.instance, { first: rss, last: rss, startedAt: Date.now() });
      else seen.last = rss;
    }
  }, 2000);
  return () => clearInterval(sampler);
}

/**
 * Memory: each pdp instance that ran a while (≥ 20 s) ends within a generous bound of where it started,
 * max(2.5 × first, first + 150 MB); a violation otherwise. Returns the figures.
 */
export function checkMemory(pdps: Slot[], violations: string[]): Record<string, string | number> {
  const mb = (bytes: number) => Math.round(bytes / 1048576);
  let longest: { name: string; seconds: number; first: number; last: number } | undefined;
  let worst: { name: string; ratio: number; first: number; last: number } | undefined;
  let instances = 0;
  for (const pdp of pdps) {
    for (const [instance, sample] of pdp.rss) {
      instances++;
      const name = `:${pdp.port}#${instance}`;
      const lived = Math.round(((sample.endedAt ?? Date.now()) - sample.startedAt) / 1000);
      if (longest === undefined || lived > longest.seconds) longest = { name, seconds: lived, first: sample.first, last: sample.last };
      if (lived < 20) continue;
      const ratio = sample.last / sample.first;
      if (worst === undefined || ratio > worst.ratio) worst = { name, ratio, first: sample.first, last: sample.last };
      if (sample.last > Math.max(sample.first * 2.5, sample.first + 150 * 1048576)) {
        violations.push(`pdp ${name} grew from ${mb(sample.first)} MB to ${mb(sample.last)} MB`);
      }
    }
  }
  return {
    'pdp instances measured (RSS every 2 s)': instances,
    'longest-lived pdp instance, RSS first → last': longest ? `${longest.seconds} s, ${mb(longest.first)} → ${mb(longest.last)} MB` : 'none',
    'worst RSS growth (instances alive ≥ 20 s)': worst ? `${mb(worst.first)} → ${mb(worst.last)} MB (×${worst.ratio.toFixed(2)})` : 'none',
  };
}
