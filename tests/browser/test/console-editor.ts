import type { Page } from 'playwright-core';

/** The CodeMirror editor of the console's document pages, as the browser tests read and write it. */

/** The editor's whole text, line by line as CodeMirror shows it; `within` names the editor's container when needed. */
export const editorText = (page: Page, within = ''): Promise<string> =>
  page.evaluate((scope) => [...document.querySelectorAll(`${scope} .cm-content .cm-line`.trim())].map((line) => line.textContent ?? '').join('\n'), within);

/** Replaces the editor's text in one input event, as a paste: the editor's tag auto-closing reacts to typed `>` only. */
export async function replaceEditorText(page: Page, text: string, within = ''): Promise<void> {
  await page.locator(`${within} .cm-content`.trim()).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

/** The 1-based numbers of the editor lines that carry an error mark. */
export function markedLines(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.cm-content .cm-line')]
      .map((line, index) => (line.querySelector('.cm-lintRange-error') ? index + 1 : 0))
      .filter((n) => n > 0),
  );
}
