/**
 * `http-api-conformance init`: writes a target profile (D-PROFILE) from the user's OpenAPI 3.0/3.1
 * document (cli/init/draft.ts), with the values the document cannot give from flags, from questions
 * on a terminal, or as `TODO` markers that `run` refuses; never replaces a file without --force;
 * then smoke-checks the target when one is given and prints the next command.
 * Exit codes: 0 written (and the smoke check passed), 1 written but the smoke check found problems,
 * 2 unusable options or document, or a file that exists.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { packagePath } from '../../spec/package-files.ts';
import { profileField, withoutIt } from '../../spec/profile-fields.ts';
import { baseUrl, optionsOrExit, parseOptions, UsageError } from '../arguments.ts';
import { probeTargets } from '../../conformance/target/probe.ts';
import { isUrl, parseProfile, ProfileError, todoMarkers } from '../../conformance/target/profile.ts';
import type { ProfileRequest, TargetProfile } from '../../conformance/target/profile.ts';
import { askMissing, todo } from './answers.ts';
import type { Answers } from './answers.ts';
import { draftProfile, noCollectionReason } from './draft.ts';
import { probeImplicitMethods } from './methods-probe.ts';
import type { Draft } from './draft.ts';
import { loadOpenApi, OpenApiError } from '../../conformance/openapi/document.ts';
import { existingIds, smokeCheck } from './smoke.ts';

export const INIT_USAGE = `usage: http-api-conformance init --openapi FILE|URL [options]

Writes a target profile from an OpenAPI 3.0/3.1 document: collections, item paths and methods,
create, replace and invalid bodies, the protected endpoint and the idempotent POST. Values the
document cannot give are asked on a terminal, taken from the options below, or written as TODO
markers that "run" refuses until you fill them in.

options:
  --openapi FILE|URL        the OpenAPI document (YAML or JSON)
  --target URL              base URL of the API (repeatable); default: the document's servers
  --token T                 tokens.valid, then tokens.other when given twice
  --limited-token T         a valid token that lacks a permission (tokens.limited)
  --limited-request "M /p"  the request that token is refused (default: a write that needs a permission)
  --rate-limit-token T      tokens.rateLimit, then tokens.rateLimitPool (repeatable)
  --fault-header NAME       a header that makes a test deployment answer 500/503 (features.faultInjection)
  --slow-value VALUE        a value of that header that delays the request (features.faultInjection.slowValue)
  --out FILE                where to write the profile (default: conformance-profile.json)
  --force                   replace an existing file
  -h, --help                print this message

exit codes: 0 profile written (and the smoke check against --target passed), 1 written but the smoke
check found problems, 2 unusable options or document, or the file exists without --force.`;

interface InitOptions {
  openapi: string;
  targets: string[];
  answers: Answers;
  out: string;
  force: boolean;
}

function parseInitOptions(args: string[], cwd: string): InitOptions | 'help' {
  const values = parseOptions(args, {
    openapi: { type: 'string' },
    target: { type: 'string', multiple: true },
    token: { type: 'string', multiple: true },
    'limited-token': { type: 'string' },
    'limited-request': { type: 'string' },
    'rate-limit-token': { type: 'string', multiple: true },
    'fault-header': { type: 'string' },
    'slow-value': { type: 'string' },
    out: { type: 'string', default: 'conformance-profile.json' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) return 'help';
  if (!values.openapi) throw new UsageError('--openapi FILE|URL is required: the OpenAPI document of your API');
  const targets = (values.target ?? []).map((target) => baseUrl('--target', target));
  if ((values.token ?? []).length > 2) throw new UsageError('--token is given at most twice: tokens.valid, then tokens.other');
  const request = values['limited-request'];
  if (request !== undefined && !/^[A-Za-z]+ \/\S*$/.test(request.trim())) throw new UsageError(`--limited-request must be "METHOD /path" (got "${request}")`);
  return {
    openapi: values.openapi,
    targets,
    answers: {
      tokens: values.token ?? [],
      ...(values['limited-token'] !== undefined ? { limitedToken: values['limited-token'] } : {}),
      ...(request !== undefined ? { limitedRequest: request.trim() } : {}),
      rateLimitTokens: values['rate-limit-token'] ?? [],
      ...(values['fault-header'] !== undefined ? { faultHeader: values['fault-header'] } : {}),
      ...(values['slow-value'] !== undefined ? { slowValue: values['slow-value'] } : {}),
    },
    out: resolve(cwd, values.out),
    force: values.force,
  };
}

/** The limited token's request: the one given (`METHOD /path`, with the collection's create body when it is one), else the draft's candidate. */
function limitedRequest(draft: Draft, given: string | undefined): ProfileRequest | undefined {
  if (given === undefined) return draft.limitedCandidate;
  const [method = 'GET', path = '/'] = given.split(' ');
  const collection = draft.collections.find((c) => c.path === path);
  return { method: method.toUpperCase(), path, ...(method.toUpperCase() === 'POST' && collection?.create ? { body: collection.create } : {}) };
}

/** A TODO's way out: delete the member, and what the schema says happens then (spec/profile-fields.ts). */
function orLeaveOut(path: string): string {
  return `or delete ${path}: without it, ${withoutIt(profileField(path))}`;
}

/**
 * The profile document: the draft, the answers, and a TODO marker for every value still missing;
 * `openapi` names the document the draft was read from (D-SCHEMA-INPUTS: the schema-driven checks read it).
 */
export function assembleProfile(draft: Draft, answers: Answers, targets: string[], schemaRef: string, openapi?: string): Record<string, unknown> {
  const [valid, other] = answers.tokens;
  const [rateLimit, ...pool] = answers.rateLimitTokens;
  const request = limitedRequest(draft, answers.limitedRequest);
  const baseUrls =
    targets.length > 0 ? targets : draft.serverUrls.length > 0 ? draft.serverUrls.slice(0, 1) : [todo('the base URL of your API, or give --target to run')];
  const tokens: Record<string, unknown> = {
    valid: valid ?? todo('a bearer token allowed every request the profile exercises'),
    other: other ?? todo(`a second caller's token (owner isolation, per-caller limits); ${orLeaveOut('tokens.other')}`),
    limited: {
      token: answers.limitedToken ?? todo(`a valid token that lacks a permission; ${orLeaveOut('tokens.limited')}`),
      request: request ?? { method: 'POST', path: todo('a request that token is refused with 403') },
    },
    rateLimit: rateLimit ?? todo(`a token reserved for the rate-limit checks, ideally on a low limit; ${orLeaveOut('tokens.rateLimit')}`),
    ...(pool.length > 0 ? { rateLimitPool: pool } : {}),
  };
  return {
    $schema: schemaRef,
    name: draft.name,
    description: draft.description,
    baseUrls,
    ...(openapi !== undefined ? { openapi } : {}),
    tokens,
    collections: draft.collections,
    ...(draft.credentials ? { credentials: draft.credentials } : {}),
    ...(draft.parameters ? { parameters: draft.parameters } : {}),
    ...(draft.idempotency ? { idempotency: draft.idempotency } : {}),
    protected: draft.protected ?? { method: 'GET', path: todo('an endpoint that requires the token') },
    features: {
      exampleApi: draft.features.exampleApi,
      hypermedia: draft.features.hypermedia,
      // D-PROFILE: several base URLs are instances of one service (conformance/support/multi-target.ts); one says nothing.
      ...(baseUrls.length > 1 ? { multiTarget: true } : {}),
      ...(answers.faultHeader ? { faultInjection: { header: answers.faultHeader, ...(answers.slowValue ? { slowValue: answers.slowValue } : {}) } } : {}),
    },
  };
}

/**
 * What the target itself tells: whether it answers, how it answers HEAD and OPTIONS (D-METHODS-IMPLICIT, replacing
 * the assumption noted from the document), and an existing id of each collection. False when it is unreachable.
 */
async function learnFromTarget(target: string, draft: Draft, profile: Record<string, unknown>, answers: Answers): Promise<boolean> {
  const [probe] = await probeTargets([target], draft.collections[0]?.path ?? '/', 5000);
  if (!probe?.ok) {
    console.error(
      `http-api-conformance init: ${target} is unreachable (${probe?.problem ?? 'no answer'}): the profile is written without the ` +
      `values learnt from the target`,
    );
    return false;
  }
  const finding = await probeImplicitMethods(target, draft.collections, answers.tokens[0]);
  draft.notes = draft.notes.filter((n) => !n.startsWith('HEAD and OPTIONS:'));
  draft.notes.push(finding);
  profile.description = `${String(profile.description).replace(/ HEAD and OPTIONS:.*$/s, '')} ${finding}`;
  for (const [name, id] of await existingIds(profile as unknown as TargetProfile)) {
    const collection = draft.collections.find((c) => c.name === name);
    if (collection) collection.existingIds = [id];
  }
  return true;
}

/** Prints the smoke check of the written profile against the target; 1 when a line failed or the target is unreachable. */
async function printSmokeCheck(target: string, reachable: boolean, profile: Record<string, unknown>): Promise<number> {
  console.log(`\nsmoke check against ${target}:`);
  if (!reachable) {
    console.log('  FAIL target unreachable');
    return 1;
  }
  let status = 0;
  for (const line of await smokeCheck(profile as unknown as TargetProfile)) {
    console.log(`  ${line.ok ? 'ok  ' : 'FAIL'} ${line.text}`);
    if (!line.ok) status = 1;
  }
  return status;
}

/** The profile's `openapi` member (D-SCHEMA-INPUTS): a URL as given, a file relative to the profile `out`. */
export function openApiRef(location: string, cwd: string, out: string): string {
  if (isUrl(location)) return location;
  return relative(dirname(out), resolve(cwd, location)).split('\\').join('/') || '.';
}

/** Runs `init` with `args`; resolves with the exit code. */
export async function initCommand(args: string[], io: { cwd?: string; interactive?: boolean } = {}): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const options = optionsOrExit('http-api-conformance init', INIT_USAGE, () => parseInitOptions(args, cwd));
  if (typeof options === 'number') return options;
  if (existsSync(options.out) && !options.force) {
    console.error(`http-api-conformance init: ${options.out} exists; give --force to replace it, or --out another file`);
    return 2;
  }
  let draft: Draft;
  try {
    const loadNotes: string[] = [];
    const doc = await loadOpenApi(options.openapi, cwd, { onNote: (note) => loadNotes.push(note) });
    draft = draftProfile(doc, options.openapi);
    draft.notes.unshift(...loadNotes);
    // A profile without a collection is one `run` refuses: say what the document lacks instead of writing it.
    if (draft.collections.length === 0) throw new OpenApiError(`${options.openapi}: ${noCollectionReason(doc)}`);
  } catch (error) {
    if (!(error instanceof OpenApiError)) throw error;
    console.error(`http-api-conformance init: ${error.message}`);
    return 2;
  }
  const interactive = io.interactive ?? (process.stdin.isTTY === true && process.stdout.isTTY === true);
  const limitedDefault = draft.limitedCandidate ? `${draft.limitedCandidate.method} ${draft.limitedCandidate.path}` : undefined;
  const answers = interactive ? await askMissing(options.answers, { input: process.stdin, output: process.stdout }, limitedDefault) : options.answers;

  const schemaRef = relative(dirname(options.out), packagePath('spec', 'schemas', 'target-profile.schema.json')).split('\\').join('/');
  const profile = assembleProfile(draft, answers, options.targets, schemaRef, openApiRef(options.openapi, cwd, options.out));
  const markers = todoMarkers(profile);
  if (markers.length === 0) {
    try {
      parseProfile(profile, 'the generated profile');
    } catch (error) {
      if (!(error instanceof ProfileError)) throw error;
      console.error(`http-api-conformance init: ${error.message}\n(give the values with the options of "init --help")`);
      return 2;
    }
  }
  const reachable = options.targets.length > 0 ? await learnFromTarget(options.targets[0] as string, draft, profile, answers) : true;
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(profile, null, 2)}\n`);
  console.log(
    `profile written: ${options.out} (${draft.collections.length} collection${draft.collections.length === 1 ? '' : 's'}: ` +
    `${draft.collections.map((c) => c.path).join(', ')})`,
  );
  for (const note of draft.notes) console.log(`  note: ${note}`);
  if (!(profile.features as { faultInjection?: unknown }).faultInjection) {
    const skipped = withoutIt(profileField('features.faultInjection'));
    console.log(`  note: no --fault-header: features.faultInjection is left out; without it, the 5xx checks are ${skipped}`);
  }
  if (markers.length > 0) {
    console.log(`\n${markers.length} value${markers.length === 1 ? '' : 's'} to fill in before "run" accepts the profile:`);
    for (const marker of markers) console.log(`  ${marker}`);
  }

  const status = options.targets.length > 0 ? await printSmokeCheck(options.targets[0] as string, reachable, profile) : 0;
  const near = relative(cwd, options.out);
  const shown = near === '' || near.startsWith('..') ? options.out : near;
  console.log(`\nnext: npx http-api-conformance run --profile ${shown.includes(' ') ? `"${shown}"` : shown}`);
  return status;
}
