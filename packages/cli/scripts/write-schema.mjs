// Writes the XSD files of the policy language into the package (`schema/<version>/`), from the policy engine this
// build bundles, so the published package ships the schema of exactly the engine it checks with.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { policySchemaFiles, SCHEMA_VERSIONS } = require('@custos/policy-engine');
const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'schema');

rmSync(target, { recursive: true, force: true });
for (const version of SCHEMA_VERSIONS) {
  for (const file of policySchemaFiles(version)) {
    const where = path.join(target, file.path);
    mkdirSync(path.dirname(where), { recursive: true });
    writeFileSync(where, file.text);
  }
}
