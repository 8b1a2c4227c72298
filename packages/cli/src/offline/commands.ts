import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { commandGroup } from '../output/command-group';
import { processOutput } from '../output/streams';
import { runCheck } from './check/check-command';
import { runEval } from './eval/eval-command';
import { registerSchemaCommand } from './schema/schema-command';
import { runTests } from './testing/test-command';

/** `custos policy check`, `custos policy test`, `custos policy schema`, `custos eval`. */
export function registerOfflineCommands(program: Command): void {
  program
    .command('eval')
    .description('decide one event against policy files offline and explain it; exit 0 when allowed, 1 when inhibited')
    .argument('<policies...>', 'policy files, or directories searched for *.xml')
    .option('--event <file>', 'the event, as a test file writes one (YAML or JSON; `timestamp` may be left out); - for stdin')
    .option('--action <action>', 'instead of --event: the action, `urn:action:<solution>:<name>` or `<solution>:<name>`')
    .option('--param <name=value>', 'with --action: a parameter, its value read as YAML (so JSON works); repeatable', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--at <time>', "the event's timestamp and the decision's now: ms since the epoch or ISO 8601 (default: now)")
    .option('--context <file>', 'settings, pips, pxps and history (earlier events) as in a test file')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(
      async (
        policies: string[],
        options: { event?: string; action?: string; param: string[]; at?: string; context?: string; format: 'text' | 'json' },
      ) => {
        process.exitCode = await runEval(
          {
            policies,
            eventFile: options.event ?? null,
            action: options.action ?? null,
            params: options.param,
            at: options.at ?? null,
            context: options.context ?? null,
            format: options.format,
          },
          processOutput,
          () => readFileSync(0, 'utf8'),
        );
      },
    );

  const policy = commandGroup(program, 'policy', 'check, test and manage policies');

  policy
    .command('check')
    .description('check policy and timer documents offline, with the engine pap uses; directories are searched for *.xml')
    .argument('<paths...>', 'policy or timer files, or directories')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--solution <names>', 'the solutions (comma-separated) the documents must belong to, as a token for them would require')
    .action((paths: string[], options: { format: 'text' | 'json'; solution?: string }) => {
      const solutions = options.solution === undefined ? null : new Set(options.solution.split(',').map((name) => name.trim()).filter((name) => name !== ''));
      process.exitCode = runCheck(paths, { format: options.format, solutions }, processOutput);
    });

  policy
    .command('test')
    .description('run the *.test.yaml policy tests offline (default: the current directory, recursively)')
    .argument('[paths...]', 'test files, or directories to search for *.test.yaml')
    .option('--junit <file>', 'also write the results as JUnit XML to this file')
    .option('--coverage', 'report the if/elseif/else branches of each policy that no test reached')
    .option('--verbose', 'print the explanation of each failed test (with --format json: of every test)')
    .option('--run <pattern>', 'run only the tests whose name contains this text (case-insensitive) or matches this /regular expression/')
    .option('--strict', "make a test whose action no mechanism of its file's policies reacts to an error instead of a warning")
    .addOption(new Option('--format <format>', 'output format: text lines, or one JSON document').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], options: { junit?: string; coverage?: boolean; verbose?: boolean; run?: string; strict?: boolean; format: 'text' | 'json' }) => {
      process.exitCode = await runTests(
        paths.length === 0 ? ['.'] : paths,
        {
          junit: options.junit ?? null,
          coverage: options.coverage === true,
          verbose: options.verbose === true,
          run: options.run ?? null,
          strict: options.strict === true,
          format: options.format,
        },
        processOutput,
      );
    });

  registerSchemaCommand(policy);
}
