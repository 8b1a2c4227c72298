import type { Page } from 'playwright-core';
import { replaceEditorText } from './console-editor';
import { useConsoleSuite } from './console-stack';

/**
 * The policy editor knows the language: typing `<` in a condition offers the expressions (and `then`), not the
 * structure around it; picking one inserts it; the pointer on an element or attribute shows its help. All of it comes
 * from pap's language description (`GET /schema/policy-language.json`).
 */

/** A policy whose condition is still to be written: the cursor goes on the empty line inside `<if>` (line 6). */
const DRAFT = [
  '<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  '        xmlns:event="http://www.mydata-control.de/4.0/event" id="urn:policy:acme:typed">',
  '  <mechanism event="urn:action:acme:show-employee">',
  '    <if>',
  '      ',
  '    </if>',
  '  </mechanism>',
  '</policy>',
].join('\n');
const CURSOR_LINE = 5;

const suite = useConsoleSuite(1);

/** The labels the completion list shows, in order. */
const options = (p: Page): Promise<string[]> =>
  p.locator('.cm-tooltip-autocomplete li .cm-completionLabel').allInnerTexts();

/** Moves the pointer onto `word` in the editor line that contains `line` (the word must be one highlighted token). */
async function pointAt(p: Page, line: string, word: string): Promise<void> {
  const point = await p.evaluate(
    ({ line: wanted, word: text }) => {
      const row = [...document.querySelectorAll('.cm-content .cm-line')].find((each) => (each.textContent ?? '').includes(wanted));
      if (row === undefined) return null;
      const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const at = (node.textContent ?? '').indexOf(text);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at + 1);
        range.setEnd(node, at + 2);
        const box = range.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }
      return null;
    },
    { line, word },
  );
  if (point === null) throw new Error(`\`${word}\` is not on an editor line with \`${line}\``);
  await p.mouse.move(point.x, point.y);
}

describe('the policy editor', () => {
  test('completes elements and attributes of the language and explains them on hover', async () => {
    await suite.signIn();

    const described = suite.page.waitForResponse((response) => response.url().endsWith('/schema/policy-language.json'));
    await suite.page.getByRole('link', { name: 'New policy' }).click();
    expect((await described).status()).toBe(200);

    await replaceEditorText(suite.page, DRAFT);
    // The empty line inside <if>, at its end (no line of the draft wraps, so lines are rows).
    await suite.page.keyboard.press('Control+Home');
    for (let line = 1; line < CURSOR_LINE; line += 1) await suite.page.keyboard.press('ArrowDown');
    await suite.page.keyboard.press('End');

    await suite.page.keyboard.type('<');
    await suite.page.locator('.cm-tooltip-autocomplete').waitFor();
    const offered = await options(suite.page);
    expect(offered).toEqual(expect.arrayContaining(['equals', 'and', 'event:string', 'then']));
    expect(offered).not.toContain('mechanism');
    expect(offered).not.toContain('policy');

    await suite.page.keyboard.type('equ');
    await suite.page.locator('.cm-tooltip-autocomplete li[aria-selected="true"]', { hasText: 'equals' }).waitFor();
    // The element's help is shown beside the list.
    await suite.page.locator('.cm-completionInfo', { hasText: 'every child equals the first' }).waitFor();
    await suite.browser.screenshot('editor-01-element-completion');
    await suite.page.keyboard.press('Enter');
    await suite.page.waitForFunction(() => (document.querySelector('.cm-content')?.textContent ?? '').includes('<equals'));
    await suite.page.keyboard.type('>');
    const lines = await suite.page.locator('.cm-content .cm-line').allInnerTexts();
    expect(lines[CURSOR_LINE - 1]?.trim()).toBe('<equals></equals>');

    // Attributes of the element being written, with their help.
    await suite.page.keyboard.type('<event:string e');
    await suite.page.locator('.cm-tooltip-autocomplete li[aria-selected="true"]', { hasText: 'eventParameter' }).waitFor();
    await suite.page.locator('.cm-completionInfo', { hasText: 'name of the event parameter' }).waitFor();
    await suite.browser.screenshot('editor-02-attribute-completion');
    await suite.page.keyboard.press('Escape');

    // An attribute of the mechanism: its help, and that it is required.
    await pointAt(suite.page, '<mechanism', 'event');
    const attributeHelp = suite.page.locator('.language-help');
    await attributeHelp.waitFor();
    expect(await attributeHelp.innerText()).toMatch(/^mechanism event\s[\s\S]*action this mechanism reacts to[\s\S]*Required\./);

    // An element: its help.
    await suite.page.mouse.move(5, 5);
    await attributeHelp.waitFor({ state: 'detached' });
    await pointAt(suite.page, '<mechanism', 'mechanism');
    const elementHelp = suite.page.locator('.language-help');
    await elementHelp.waitFor();
    expect(await elementHelp.innerText()).toMatch(/^mechanism\s+Reacts to events of one action/);
    await suite.browser.screenshot('editor-03-hover');

    // No script errors and no failed request: the live check answers an unfinished policy with a 200 and its problems.
    expect(suite.browser.problems).toEqual([]);
  }, 90_000);
});
