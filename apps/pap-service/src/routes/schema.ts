import { Type } from '@sinclair/typebox';
import { policyLanguageSchema, SCHEMA_PATHS } from '@custos/contracts';
import { describePolicyLanguage, mainSchemaFile, policySchemaFiles, SCHEMA_VERSIONS, type SchemaVersion } from '@custos/policy-engine';
import { jsonResponse, problems } from '@custos/service-kit';
import { papRoute } from './context';
import { problem } from './responses';

/**
 * The policy language for editors, without a token: what the language is, not anything deployed — the same text
 * the CLI package ships and the documentation states — and an editor that follows `xsi:schemaLocation` to pap
 * cannot send a token. The answers are built from the engine once and may be cached (they change with pap's
 * version only).
 */
const CACHE = 'public, max-age=3600';

let files: ReadonlyMap<string, string> | null = null;
const schemaFiles = (): ReadonlyMap<string, string> =>
  (files ??= new Map(SCHEMA_VERSIONS.flatMap((version) => policySchemaFiles(version).map((file) => [file.path, file.text] as const))));

export const languageRoute = papRoute({
  method: 'get',
  path: SCHEMA_PATHS.language,
  summary: 'the policy language as data for editors',
  description:
    'Every element with its namespace prefix, attributes (required, closed value lists), children and a short help text, ' +
    'as the policy engine checks them; the console completes from it. Needs no token.',
  responses: { 200: jsonResponse('the language description', policyLanguageSchema) },
  handler: (_req, res) => {
    res.setHeader('Cache-Control', CACHE);
    res.json(describePolicyLanguage());
  },
});

export const xsdRoute = papRoute({
  method: 'get',
  path: SCHEMA_PATHS.xsd,
  summary: 'an XML Schema file of the policy language',
  description:
    `The XSD of a version of the language for XML editors: \`${mainSchemaFile('4.0')}\` (\`${mainSchemaFile('3.2.46')}\` for 3.2.46) ` +
    'imports one file per family namespace (`event.xsd` …) from the same folder; `catalog.xml` names the file of each namespace. Needs no token.',
  params: {
    version: { schema: Type.Union(SCHEMA_VERSIONS.map((version) => Type.Literal(version))), description: 'the language version, `4.0` or `3.2.46`' },
    file: { schema: Type.String({ pattern: '^[A-Za-z0-9]{1,40}\\.(xsd|xml)$' }), description: `a file name, e.g. \`${mainSchemaFile('4.0')}\` or \`catalog.xml\`` },
  },
  responses: {
    200: { description: 'the XSD (or the catalog)', content: { 'application/xml': { schema: { type: 'string' } } } },
    400: problem('`invalid_request`: an unknown version or a malformed file name'),
    404: problem('`not_found`: no such file in that version'),
  },
  handler: (_req, res, { params }) => {
    const version: SchemaVersion = params.version;
    const text = schemaFiles().get(`${version}/${params.file}`);
    if (text === undefined) throw problems.notFound(`no file \`${params.file}\` in the ${version} schema`);
    res.setHeader('Cache-Control', CACHE);
    res.type('application/xml').send(text);
  },
});
