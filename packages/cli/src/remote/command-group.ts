import type { Command } from 'commander';

/**
 * The subcommand group `name` of the program, created when missing: `policy` holds both the offline commands
 * (check, test) and the remote ones, and whichever half registers first creates it.
 */
export function commandGroup(program: Command, name: string, description: string): Command {
  const existing = program.commands.find((command) => command.name() === name);
  if (existing) return existing;
  return program.command(name).description(description);
}
