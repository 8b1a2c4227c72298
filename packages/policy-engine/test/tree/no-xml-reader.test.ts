import { loadPolicyTree, type LoadOutcome } from '../../src';
import { policyXml } from '../support/policies';

/**
 * A process that only compiles trees (the pdp) never loads libxmljs2: the engine loads it on the first XML read.
 * Checked in a fresh module registry that counts the loads of libxmljs2.
 */
interface Engine {
  loadCompiledTree(tree: unknown): LoadOutcome;
  loadPolicy(xml: string): LoadOutcome;
}

describe('compiling a tree', () => {
  it('does not load libxmljs2, reading XML does', () => {
    const xml = policyXml(
      '<mechanism event="urn:action:acme:act"><if><regex regex="^a"><event:string eventParameter="s" jsonPathQuery="$.n" default=""/></regex><then><inhibit/></then></if></mechanism>',
    );
    const loaded = loadPolicyTree(xml);
    if (!loaded.ok) throw new Error('refused');
    const tree: unknown = JSON.parse(JSON.stringify(loaded.tree));
    let loads = 0;
    const outcomes: LoadOutcome[] = [];
    const loadsAfter: number[] = [];
    jest.isolateModules(() => {
      jest.doMock('libxmljs2', () => {
        loads++;
        return jest.requireActual('libxmljs2');
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the engine, in this registry
      const engine = require('../../src') as Engine;
      outcomes.push(engine.loadCompiledTree(tree));
      loadsAfter.push(loads);
      outcomes.push(engine.loadPolicy(xml));
      loadsAfter.push(loads);
    });
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(loadsAfter).toEqual([0, 1]);
  });
});
