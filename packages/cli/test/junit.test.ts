import { junitXml } from '../src/offline/testing/junit';

describe('JUnit report', () => {
  it('writes one suite per file with its counts, failures with their text, and totals', () => {
    const xml = junitXml([
      {
        name: 'a.test.yaml',
        cases: [
          { name: 'passes', seconds: 0.0015 },
          { name: 'fails <badly> & "loudly"', seconds: 0.25, failure: { message: 'expect.allowed: expected true, got false', text: 'line one\nline <two>' } },
        ],
      },
      { name: 'broken.test.yaml', cases: [], error: { message: 'tests[0]: needs `event`', text: 'broken.test.yaml:3:5: tests[0]: needs `event`' } },
    ]);
    expect(xml.split('\n')).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testsuites name="custos policy test" tests="3" failures="1" errors="1" time="0.252">',
      '  <testsuite name="a.test.yaml" tests="2" failures="1" errors="0" skipped="0" time="0.252">',
      '    <testcase name="passes" classname="a.test.yaml" time="0.002"/>',
      '    <testcase name="fails &lt;badly&gt; &amp; &quot;loudly&quot;" classname="a.test.yaml" time="0.250">',
      '      <failure message="expect.allowed: expected true, got false">line one',
      'line &lt;two&gt;</failure>',
      '    </testcase>',
      '  </testsuite>',
      '  <testsuite name="broken.test.yaml" tests="1" failures="0" errors="1" skipped="0" time="0.000">',
      '    <testcase name="load broken.test.yaml" classname="broken.test.yaml" time="0">',
      '      <error message="tests[0]: needs `event`">broken.test.yaml:3:5: tests[0]: needs `event`</error>',
      '    </testcase>',
      '  </testsuite>',
      '</testsuites>',
      '',
    ]);
  });

  it('keeps characters XML cannot hold out of the document, and line breaks out of attributes', () => {
    const xml = junitXml([{ name: 's', cases: [{ name: 'bell\u0007 and\nbreak', seconds: 0, failure: { message: 'a\nb', text: 'nul\u0000' } }] }]);
    expect(xml).toContain('name="bell\uFFFD and&#10;break"');
    expect(xml).toContain('message="a&#10;b">nul\uFFFD</failure>');
  });
});
