import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { mainSchemaFile, SCHEMA_VERSIONS, type SchemaVersion } from '@custos/policy-engine';
import { EXIT_CODES } from '../../output/exit-codes';
import { processOutput, type Output } from '../../output/streams';

/**
 * The folder of the XSD files the build writes into the package (scripts/write-schema.mjs): `schema/` beside
 * `dist/` in the package, whatever depth the running file has (one bundled file when published, the compiled tree
 * in this repository).
 */
export function schemaFolder(from: string = __dirname): string | null {
  for (let folder = from; ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@custos/cli') {
      const schema = path.join(folder, 'schema');
      return existsSync(schema) ? schema : null;
    }
    if (path.dirname(folder) === folder) return null;
  }
}

interface SchemaOptions {
  readonly version: SchemaVersion;
  readonly out: string | null;
}

/** Prints the path of the main XSD of a version; with `out`, copies its files there first and prints the copy's. */
export function runSchema(options: SchemaOptions, output: Output, folder = schemaFolder()): number {
  if (folder === null) {
    output.err('custos: the schema files are missing from the package; build the CLI (`npx turbo run build --filter=@custos/cli...`)\n');
    return EXIT_CODES.usage;
  }
  const source = path.join(folder, options.version);
  let target = source;
  if (options.out !== null) {
    target = path.resolve(options.out);
    try {
      mkdirSync(target, { recursive: true });
      for (const file of readdirSync(source)) copyFileSync(path.join(source, file), path.join(target, file));
    } catch (error) {
      output.err(`custos: cannot write the schema to \`${options.out}\`: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT_CODES.usage;
    }
  }
  output.out(`${path.join(target, mainSchemaFile(options.version))}\n`);
  return EXIT_CODES.ok;
}

/** `custos policy schema`. */
export function registerSchemaCommand(policy: Command): void {
  policy
    .command('schema')
    .description('print the path of the XSD of the policy language for XML editors (the files it imports are beside it)')
    .addOption(new Option('--language-version <version>', 'the namespace version of the language').choices([...SCHEMA_VERSIONS]).default('4.0'))
    .option('--out <dir>', 'copy the schema files into this folder first and print the path of the copy')
    .action((options: { languageVersion: SchemaVersion; out?: string }) => {
      process.exitCode = runSchema({ version: options.languageVersion, out: options.out ?? null }, processOutput);
    });
}
