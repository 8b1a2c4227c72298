/** The `custos` command line. */
export async function main(argv: readonly string[]): Promise<number> {
  process.stderr.write(`custos: not built yet (${argv.length})\n`);
  return 2;
}
