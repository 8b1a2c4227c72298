import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium; `.ci/run` installs it when missing. */
export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** Screenshots land here (git-ignored) for people to look at. */
export const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of every page, CSP violations included. */
  problems: string[];
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

/** A headless chromium with a fresh profile that is removed on close. */
export async function launch(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at \`${CHROMIUM}\`; install it with \`apt-get install -y chromium\` (.ci/run does)`);
  const profile = mkdtempSync(path.join(tmpdir(), 'custos-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  };
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    problems,
    screenshot: async (name, target = page) => {
      const file = path.join(ARTIFACTS, `${name}.png`);
      await target.screenshot({ path: file, fullPage: true });
      return file;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Form controls on the page without a visible label: no <label> of their own and no aria-labelledby naming
 * visible text. CodeMirror's editable area counts as a control.
 */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const visible = (el: Element | null) => el !== null && (el as HTMLElement).innerText.trim() !== '';
    const controls = [...document.querySelectorAll('input, select, textarea, .cm-content[contenteditable="true"]')];
    return controls
      .filter((el) => !(el instanceof HTMLInputElement && el.type === 'hidden'))
      .filter((el) => {
        const labels = (el as HTMLInputElement).labels;
        if (labels && [...labels].some((label) => visible(label))) return false;
        const by = el.getAttribute('aria-labelledby');
        return !(by !== null && by.split(/\s+/).some((id) => visible(document.getElementById(id))));
      })
      .map((el) => el.outerHTML.slice(0, 120));
  });
}
