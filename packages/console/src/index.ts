import path from 'node:path';

/**
 * The folder of the built console (index.html and hashed assets), which pap serves at `/console`. The package's
 * only export: the browser code itself is bundled by its build, not imported.
 */
export const CONSOLE_ASSETS_DIR = path.join(__dirname, 'web');
