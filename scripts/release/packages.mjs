// The packages Custos publishes, and how each is made from its workspace. One module for the release workflow and
// for the test that publishes to a local registry (tests/packages), so what is tested is what is released.
//
// Only the workspaces named in PUBLISHED leave the repository. Every other workspace a published one depends on
// (contracts, policy-engine) is bundled into it: its JavaScript by esbuild, its type declarations by
// rollup-plugin-dts. The published manifest then names no `@custos/*` package but itself, so no install ever asks a
// registry for a name this project does not publish (docs/engineering.md, "Packages that leave the repository").
// Third-party dependencies of the bundled workspaces (libxmljs2, a native addon, among them) stay real dependencies.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { ROOT, workspaces } from './workspaces.mjs';

export { ROOT, workspaces };

/** The workspaces that are published, in the order they are published. */
export const PUBLISHED = ['packages/pep', 'packages/cli'];

/** Where a published package goes unless the command line says otherwise: the public registry, with provenance. */
export const PUBLISH_CONFIG = { access: 'public', provenance: true, registry: 'https://registry.npmjs.org/' };

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * What a published workspace is made of: the internal workspaces bundled into it and the third-party dependencies
 * all of them need at run time (name → range). Two different ranges of one dependency are refused: the bundle can
 * carry only one.
 */
export function bundlePlan(workspaceDir, all = workspaces()) {
  const bundled = new Set();
  const external = new Map();
  const visit = (manifest) => {
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      const internal = all.get(name);
      if (internal) {
        if (internal.manifest.private !== true) {
          throw new Error(`workspace \`${name}\` is bundled into a published package, so it must stay \`private: true\``);
        }
        if (!bundled.has(name)) {
          bundled.add(name);
          visit(internal.manifest);
        }
      } else if (name.startsWith('@custos/')) {
        throw new Error(`dependency \`${name}\` is in the project's scope but no workspace: nothing published may name it`);
      } else if (external.has(name) && external.get(name) !== range) {
        throw new Error(`dependency \`${name}\` is wanted as \`${external.get(name)}\` and as \`${range}\`; align the workspaces first`);
      } else {
        external.set(name, range);
      }
    }
  };
  visit(readJson(path.join(workspaceDir, 'package.json')));
  return { bundled: [...bundled].sort(), external: new Map([...external].sort(([a], [b]) => a.localeCompare(b))) };
}

/** The manifest npm publishes: the workspace's own fields, the repository's licence and engines, no workspace names. */
export function publishedManifest(workspace, plan, { repository } = {}) {
  const root = readJson(path.join(ROOT, 'package.json'));
  const own = workspace.manifest;
  const manifest = {
    name: own.name,
    version: own.version,
    description: own.description,
    license: root.license,
    ...(repository ? { repository: { type: 'git', url: `git+${repository}.git`, directory: path.relative(ROOT, workspace.dir) } } : {}),
    type: 'commonjs',
    main: 'dist/index.js',
    types: 'dist/index.d.ts',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    ...(own.bin ? { bin: own.bin } : {}),
    files: own.files,
    engines: root.engines,
    dependencies: Object.fromEntries(plan.external),
    publishConfig: PUBLISH_CONFIG,
  };
  if (Object.keys(manifest.dependencies).length === 0) delete manifest.dependencies;
  return manifest;
}

/** A module that is resolved by the package's users, not bundled: a Node built-in or a third-party dependency. */
function isExternal(plan) {
  return (id) => isBuiltin(id) || [...plan.external.keys()].some((name) => id === name || id.startsWith(`${name}/`));
}

/** Fails when a file of the staged package still names a `@custos/*` module other than the package itself. */
function assertNoInternalImports(file, ownName) {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:require\(|from |import\()\s*["'](@custos\/[^"'/]+)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[1] !== ownName) throw new Error(`${path.relative(ROOT, file)} still imports \`${match[1]}\`, which is not published`);
  }
}

/**
 * The workspace's README as the registry shows it: links into the repository (`../../docs/cli.md`) point at the
 * release's tag in the repository, since the files they name are not in the package. Without a repository URL
 * the README goes as it is.
 */
function readmeForRegistry(workspace, version, repository) {
  const text = readFileSync(path.join(workspace.dir, 'README.md'), 'utf8');
  if (!repository) return text;
  return text.replace(/\]\((?![a-z]+:|#)([^)\s]+)\)/g, (_link, target) => {
    const inRepository = path.relative(ROOT, path.resolve(workspace.dir, target)).split(path.sep).join('/');
    return `](${repository}/blob/v${version}/${inRepository})`;
  });
}

/** Stages one published workspace under `stageDir`: bundled code, rolled-up declarations, manifest, README, bin, other `files`. */
export async function stagePackage(workspaceRelDir, stageDir, options = {}) {
  const all = workspaces();
  const workspace = [...all.values()].find((candidate) => candidate.dir === path.join(ROOT, workspaceRelDir));
  if (!workspace) throw new Error(`\`${workspaceRelDir}\` is not a workspace`);
  const entry = path.join(workspace.dir, 'dist', 'index.js');
  const declarations = path.join(workspace.dir, 'dist', 'index.d.ts');
  for (const needed of [entry, declarations]) {
    if (!existsSync(needed)) throw new Error(`${path.relative(ROOT, needed)} is missing; build first (\`npx turbo run build\`)`);
  }
  const plan = bundlePlan(workspace.dir, all);
  const external = isExternal(plan);
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(path.join(stageDir, 'dist'), { recursive: true });

  await build({
    entryPoints: [entry],
    outfile: path.join(stageDir, 'dist', 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: [...plan.external.keys()].flatMap((name) => [name, `${name}/*`]),
    logLevel: 'warning',
  });
  const types = await rollup({ input: declarations, plugins: [dts({ respectExternal: true })], external });
  await types.write({ file: path.join(stageDir, 'dist', 'index.d.ts'), format: 'es' });
  await types.close();

  const manifest = publishedManifest(workspace, plan, options);
  writeFileSync(path.join(stageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(path.join(stageDir, 'README.md'), readmeForRegistry(workspace, manifest.version, options.repository));
  if (existsSync(path.join(ROOT, 'LICENSE'))) copyFileSync(path.join(ROOT, 'LICENSE'), path.join(stageDir, 'LICENSE'));
  for (const [, script] of Object.entries(manifest.bin ?? {})) {
    mkdirSync(path.dirname(path.join(stageDir, script)), { recursive: true });
    copyFileSync(path.join(workspace.dir, script), path.join(stageDir, script));
  }
  // Other entries of `files` (the CLI's `schema/`, written by its build) go as the workspace has them.
  const bins = new Set(Object.values(manifest.bin ?? {}).map((script) => path.normalize(script).split(path.sep)[0]));
  for (const entry of manifest.files ?? []) {
    if (entry === 'dist' || bins.has(entry)) continue;
    const source = path.join(workspace.dir, entry);
    if (!existsSync(source)) throw new Error(`${path.relative(ROOT, source)} is missing; build first (\`npx turbo run build\`)`);
    cpSync(source, path.join(stageDir, entry), { recursive: true });
  }
  for (const file of ['index.js', 'index.d.ts']) assertNoInternalImports(path.join(stageDir, 'dist', file), manifest.name);
  return { name: manifest.name, version: manifest.version, dir: stageDir, bundled: plan.bundled };
}

/**
 * Stages and packs every published workspace into `outDir`; returns each package with its tarball. The tarballs are
 * what `npm publish` uploads.
 */
export async function packAll(outDir, options = {}) {
  mkdirSync(outDir, { recursive: true });
  const packed = [];
  for (const workspaceRelDir of PUBLISHED) {
    const staged = await stagePackage(workspaceRelDir, path.join(outDir, 'stage', path.basename(workspaceRelDir)), options);
    const output = execFileSync('npm', ['pack', staged.dir, '--pack-destination', outDir, '--json', '--ignore-scripts'], {
      cwd: outDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [info] = JSON.parse(output);
    packed.push({ ...staged, tarball: path.join(outDir, info.filename), files: info.files.map((file) => file.path).sort() });
  }
  return packed;
}
