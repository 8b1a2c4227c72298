import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mainSchemaFile, policySchemaFiles } from '@custos/policy-engine';
import { runSchema, schemaFolder } from '../src/offline/schema/schema-command';
import { bufferedOutput } from '../src/output/streams';
import { custos, temporaryDirectory } from './support/cli';

/** `custos policy schema`: the XSD the package ships is the engine's, and can be copied into a project. */

const FILES = policySchemaFiles('4.0').map((file) => path.basename(file.path)).sort();

test('prints the path of the shipped XSD, which is the one the bundled engine generates', () => {
  const run = custos(['policy', 'schema']);
  expect(run.status).toBe(0);
  const printed = run.stdout.trim();
  expect(path.basename(printed)).toBe(mainSchemaFile('4.0'));
  expect(readFileSync(printed, 'utf8')).toBe(policySchemaFiles('4.0').find((file) => file.path.endsWith(mainSchemaFile('4.0')))?.text);
  expect(readdirSync(path.dirname(printed)).sort()).toEqual(FILES);
});

test('--out copies every file of the version into a folder and prints the copy', () => {
  const dir = temporaryDirectory();
  try {
    const target = path.join(dir, 'schema');
    const run = custos(['policy', 'schema', '--language-version', '3.2.46', '--out', target]);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(path.join(target, mainSchemaFile('3.2.46')));
    expect(readdirSync(target).sort()).toEqual(policySchemaFiles('3.2.46').map((file) => path.basename(file.path)).sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unknown version is a usage error', () => {
  const run = custos(['policy', 'schema', '--language-version', '5.0']);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('Allowed choices are 4.0, 3.2.46');
});

test('finds the schema beside the bundle of a published package, and says so when it is missing', () => {
  const dir = temporaryDirectory();
  try {
    // The published layout: one bundled file in dist/, the schema beside it.
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: '@custos/cli' }));
    mkdirSync(path.join(dir, 'dist'));
    expect(schemaFolder(path.join(dir, 'dist'))).toBeNull();
    const output = bufferedOutput();
    expect(runSchema({ version: '4.0', out: null }, output, null)).toBe(2);
    expect(output.stderr.join('\n')).toContain('schema files are missing');
    mkdirSync(path.join(dir, 'schema', '4.0'), { recursive: true });
    expect(schemaFolder(path.join(dir, 'dist'))).toBe(path.join(dir, 'schema'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
