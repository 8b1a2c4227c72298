import type { Command } from 'commander';

/**
 * The subcommand group `name` of `program`, created on first use. Both halves of the CLI add to groups such as
 * `policy`; asking here instead of calling `program.command(name)` twice keeps one group with all subcommands.
 */
export function commandGroup(program: Command, name: string, description: string): Command {
  const existing = program.commands.find((command) => command.name() === name);
  if (existing !== undefined) return existing;
  return program.command(name).description(description);
}
