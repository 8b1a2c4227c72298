import type { Command } from 'commander';

/** `custos policy check`, `custos policy test`. */
export function registerOfflineCommands(program: Command): void {
  void program;
}
