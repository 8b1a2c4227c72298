import type { Command } from 'commander';

/** `custos login`, the management commands, `decide`, `explain` and `apply`. */
export function registerRemoteCommands(program: Command): void {
  void program;
}
