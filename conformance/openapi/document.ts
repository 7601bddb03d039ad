/**
 * Reading the user's OpenAPI 3.0/3.1 document, for `init` and for the schema-driven checks
 * (D-SCHEMA-INPUTS): from a file or an http(s) URL, validated (or not: `validate: false`) and
 * dereferenced with @readme/openapi-parser. A schema whose `$id` names where it is published
 * (`https://example.com/schemas/order.schema.json`) but that is shipped beside the document is read
 * from the local copy: a `$ref` resolved against that `$id` finds its sibling file without a network fetch.
 */
import type * as OpenApiParser from '@readme/openapi-parser';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** A dereferenced OpenAPI document: the members `init` reads. */
export interface OpenApiDocument {
  openapi: string;
  /** Swagger 2.0 documents say `swagger: "2.0"` instead of `openapi`. */
  swagger?: unknown;
  webhooks?: Record<string, unknown>;
  info?: { title?: string };
  servers?: { url: string; variables?: Record<string, { default?: unknown; enum?: unknown[] }> }[];
  paths: Record<string, PathItem>;
  security?: SecurityRequirement[];
  components?: { securitySchemes?: Record<string, SecurityScheme> };
}

/** The refusal of a Swagger 2.0 document (SWAGGER-2 is not read): what to run to convert it. */
export function swagger2Message(location: string): string {
  return (
    `${location}: Swagger 2.0: init reads OpenAPI 3.0 and 3.1 documents. Convert it with ` +
    `"npx swagger2openapi ${location} --yaml --outfile openapi.yaml" (or the Swagger Editor's Edit > Convert to OpenAPI 3), ` +
    'then give the converted file to --openapi'
  );
}

/** Whether a parsed document root is Swagger 2.0 (`swagger: "2.0"`, no `openapi`). */
function isSwagger2(root: unknown): boolean {
  return typeof root === 'object' && root !== null && 'swagger' in root && !('openapi' in root);
}

export type SecurityRequirement = Record<string, string[]>;

export interface SecurityScheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
  example?: unknown;
}

export interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

export interface Operation {
  operationId?: string;
  security?: SecurityRequirement[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  callbacks?: Record<string, unknown>;
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

export type PathItem = Partial<Record<(typeof HTTP_METHODS)[number], Operation>> & { parameters?: Parameter[] };

/** The request body media type of `op` that is JSON (application/json or any `+json` type, parameters allowed; D-BODY). */
export function jsonRequestMedia(op: Operation | undefined): MediaType | undefined {
  const content = op?.requestBody?.content ?? {};
  const key = Object.keys(content).find((type) => /^application\/(?:[\w.+-]+\+)?json$/i.test(type.split(';')[0]?.trim() ?? ''));
  return key === undefined ? undefined : content[key];
}

/** A JSON Schema (2020-12 or the OpenAPI 3.0 dialect), dereferenced: no `$ref` left but circular ones. */
export type JsonSchema = { [keyword: string]: unknown } | boolean;

/** The operation keys of a path item, lowercase as OpenAPI writes them. */
export const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;

/** Thrown when the document cannot be read or is not an OpenAPI 3.x document; the message says why. */
export class OpenApiError extends Error {
  override readonly name = 'OpenApiError';
}

function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** Thrown by `parseDocumentText`: the file, line and column of a syntax error. */
class DocumentSyntaxError extends Error {}

/**
 * The text of a document file, parsed with the `yaml` package, which reads YAML 1.2 as written. The
 * parser's own js-yaml refuses a flow mapping whose closing `}` is not indented past its key
 * ("deficient indentation"), which YAML 1.2 and the `yaml` package allow (the matrix-spec documents
 * write it). A syntax error names the file, line and column.
 */
function parseDocumentText(text: string, path: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: -1 }) as unknown;
  } catch (error) {
    const at = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new DocumentSyntaxError(`${at ? `${path}:${at.line}:${at.col}` : path}: ${((error as Error).message.split('\n')[0] ?? '').replace(/:\s*$/, '')}`);
  }
}

/** How the resolver hands a file over (`localFirstResolver`). */
interface ReadMode {
  /**
   * Parse every file here (`parseDocumentText`) rather than leave it to the parser's js-yaml, which
   * is faster (paddle-billing.yaml, 1.6 MB: 1.6 s to load against 4.3 s) but refuses some YAML 1.2:
   * the second try after js-yaml refused a file.
   */
  parseHere?: boolean;
  /** D-OPENAPI-VERSION: the root document is read as OpenAPI 3.1, its relative references still resolved against its own file. */
  readAs31?: boolean;
  /** Where a syntax error found here is kept, for the message (the parser wraps it as "Error reading file"). */
  syntaxErrors?: DocumentSyntaxError[];
}

/**
 * The file resolver of the parser, extended: it remembers, for each schema file carrying an absolute
 * `$id`, the folder that `$id` names, and reads an http(s) reference into that folder from the local
 * folder when the file is there; other http(s) references are fetched. `mode` says which files it
 * parses itself (the parser parses the others).
 */
function localFirstResolver(rootUrl: string, mode: ReadMode = {}): object {
  const mirrors = new Map<string, string>(); // `$id` folder URL -> local folder
  const remember = (path: string, text: string): void => {
    // Most files (the document itself) name no `$id`: not parsed a second time.
    if (!text.includes('$id')) return;
    let data: unknown;
    try {
      data = parseYaml(text);
    } catch {
      return;
    }
    const id = typeof data === 'object' && data !== null ? (data as { $id?: unknown }).$id : undefined;
    if (typeof id === 'string' && isUrl(id)) mirrors.set(new URL('.', id).href, dirname(path));
  };
  const localPath = (url: string): string | undefined => {
    const bare = url.split('#')[0] ?? url;
    if (bare.startsWith('file:')) return fileURLToPath(bare);
    if (!isUrl(bare)) return decodeURIComponent(bare);
    for (const [folder, local] of mirrors) {
      if (!bare.startsWith(folder)) continue;
      const candidate = join(local, decodeURIComponent(bare.slice(folder.length)));
      if (existsSync(candidate)) return candidate;
    }
    return undefined;
  };
  /** The file as the parser gets it: its text, or the data parsed here. */
  const handedOver = (url: string, text: string, name: string): unknown => {
    const isRoot = url.split('#')[0] === rootUrl;
    if (!mode.parseHere && !(mode.readAs31 && isRoot)) return text;
    let data: unknown;
    try {
      data = parseDocumentText(text, name);
    } catch (error) {
      if (error instanceof DocumentSyntaxError) mode.syntaxErrors?.push(error);
      throw error;
    }
    if (mode.readAs31 && isRoot && typeof data === 'object' && data !== null && 'openapi' in data) return { ...data, openapi: '3.1.0' };
    return data;
  };
  return {
    order: 1,
    canRead: (file: { url: string }) => localPath(file.url) !== undefined || isUrl(file.url),
    read: async (file: { url: string }) => {
      const path = localPath(file.url);
      if (path === undefined) {
        // The parser's own http resolver refuses loopback and private addresses; the user named this
        // document, and a development server on 127.0.0.1 is theirs to read.
        const response = await fetch(file.url, {
          headers: { accept: 'application/yaml, application/json;q=0.9, */*;q=0.5' },
          signal: AbortSignal.timeout(10_000),
        });
        if (!response.ok) throw new Error(`GET ${file.url} answered ${response.status}`);
        return handedOver(file.url, await response.text(), file.url);
      }
      const text = await readFile(path, 'utf8');
      remember(path, text);
      return handedOver(file.url, text, path);
    },
  };
}

/** The parser's options with `localFirstResolver` in `mode`. */
function parserOptionsFor(rootUrl: string, mode: ReadMode = {}): object {
  return { resolve: { file: localFirstResolver(rootUrl, mode) }, dereference: { circular: 'ignore' } };
}

/**
 * Reads, validates and dereferences the OpenAPI document at `location` (a file path or an http(s) URL).
 * `validate: false` skips the validation against the OpenAPI schema (about 1 s of CPU for
 * spec/openapi.yaml): the suite reads the document a profile names only for its request schemas
 * (D-SCHEMA-INPUTS), and `init` has validated it when it wrote the profile.
 */
export async function loadOpenApi(
  location: string,
  cwd: string = process.cwd(),
  options: { validate?: boolean; onNote?: (note: string) => void } = {},
): Promise<OpenApiDocument> {
  const source = isUrl(location) ? location : resolve(cwd, location);
  // Without validation the dereferenced document is checked for Swagger 2.0 instead (`dereferenced`): the file is parsed once.
  if (!isUrl(source) && options.validate !== false) {
    let text: string;
    try {
      text = readFileSync(source, 'utf8');
    } catch (error) {
      throw new OpenApiError(`cannot read the OpenAPI document ${location}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    // Read from the text: parsing a 1.6 MB document here cost 0.8 s before the parser parses it again.
    if (/(?:^|[{,]\s*)["']?swagger["']?\s*:\s*["']?2\./m.test(text) && !/(?:^|[{,]\s*)["']?openapi["']?\s*:/m.test(text)) {
      throw new OpenApiError(swagger2Message(location));
    }
  }
  const { dereference, validate, compileErrors, parse } = await import('@readme/openapi-parser');
  const target = isUrl(source) ? source : pathToFileURL(source).href;
  if (options.validate === false) return dereferenced(target, location, dereference);
  const { value: result, parserOptions, parseHere } = await withYamlFallback(target, location, (readOptions) => validate(target, readOptions as never));
  if (!result.valid && isUrl(source)) {
    const root = (await dereference(target, parserOptions as never).catch(() => undefined)) as unknown;
    if (isSwagger2(root)) throw new OpenApiError(swagger2Message(location));
  }
  if (!result.valid) {
    const upgraded = await asOpenApi31(target, parseHere, { parse, validate, dereference });
    if (upgraded === undefined) throw new OpenApiError(`${location} is not a valid OpenAPI document:\n${compileErrors(result)}`);
    options.onNote?.(
      `${location} says openapi ${upgraded.said} but is valid only as OpenAPI 3.1 (it uses 3.1's JSON Schema, as FastAPI before 0.99 ` +
        'writes exclusiveMinimum: 0): read as 3.1',
    );
    return upgraded.doc;
  }
  const doc = (await dereference(target, parserOptions as never)) as unknown as OpenApiDocument;
  if (isSwagger2(doc)) throw new OpenApiError(swagger2Message(location));
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\./.test(doc.openapi)) {
    throw new OpenApiError(`${location}: init reads OpenAPI 3.0 and 3.1 documents (this one says openapi: ${String(doc.openapi ?? doc)})`);
  }
  return doc;
}

type Parser = typeof OpenApiParser;

/**
 * D-OPENAPI-VERSION: a document that says 3.0 but is valid only as 3.1 (FastAPI before 0.99 labels its
 * JSON Schema 2020-12 output `3.0.2`, with `exclusiveMinimum: 0` where 3.0 wants a boolean; Algolia's
 * says 3.0.2 and writes `info.summary` and `type: 'null'`) is read as 3.1, the version its schemas are
 * written in; undefined when it is invalid as 3.1 too, or says 3.1 already. The root file is read as
 * 3.1 in place, so the references of a multi-file document still resolve against its folder.
 */
async function asOpenApi31(
  target: string,
  parseHere: boolean,
  parser: Pick<Parser, 'parse' | 'validate' | 'dereference'>,
): Promise<{ said: string; doc: OpenApiDocument } | undefined> {
  const asSaid = parserOptionsFor(target, { parseHere });
  const root = (await parser.parse(target, asSaid as never).catch(() => undefined)) as { openapi?: unknown } | undefined;
  if (root === undefined || typeof root.openapi !== 'string' || !/^3\.0\./.test(root.openapi)) return undefined;
  const said = root.openapi;
  const as31 = (): object => parserOptionsFor(target, { parseHere, readAs31: true });
  const result = await parser.validate(target, as31() as never).catch(() => undefined);
  if (!result?.valid) return undefined;
  const doc = (await parser.dereference(target, as31() as never).catch(() => undefined)) as OpenApiDocument | undefined;
  return doc === undefined ? undefined : { said, doc };
}

/**
 * `read` with the parser's options, first leaving the parsing to the parser's js-yaml; when js-yaml
 * refuses a file, again with every file parsed here by the `yaml` package, which reads YAML 1.2 as
 * written and names the file and line when it refuses too. Resolves with the options that read it.
 */
async function withYamlFallback<T>(
  target: string,
  location: string,
  read: (parserOptions: object) => Promise<T>,
): Promise<{ value: T; parserOptions: object; parseHere: boolean }> {
  const parserOptions = parserOptionsFor(target);
  try {
    return { value: await read(parserOptions), parserOptions, parseHere: false };
  } catch (error) {
    if (!/^Error parsing /.test((error as Error).message)) throw new OpenApiError(`cannot read the OpenAPI document ${location}: ${(error as Error).message}`);
  }
  const syntaxErrors: DocumentSyntaxError[] = [];
  const yamlOptions = parserOptionsFor(target, { parseHere: true, syntaxErrors });
  try {
    return { value: await read(yamlOptions), parserOptions: yamlOptions, parseHere: true };
  } catch (second) {
    throw new OpenApiError(`cannot read the OpenAPI document ${location}: ${syntaxErrors[0]?.message ?? (second as Error).message}`);
  }
}

/** The document at `target`, dereferenced without validation; an OpenApiError names `location` when it cannot be read. */
async function dereferenced(
  target: string,
  location: string,
  dereference: (api: string, options: never) => Promise<unknown>,
): Promise<OpenApiDocument> {
  const dereferenceWith = async (parserOptions: object): Promise<OpenApiDocument> => (await dereference(target, parserOptions as never)) as OpenApiDocument;
  const { value: doc } = await withYamlFallback(target, location, dereferenceWith);
  if (isSwagger2(doc)) throw new OpenApiError(swagger2Message(location));
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\./.test(doc.openapi)) {
    throw new OpenApiError(`${location}: OpenAPI 3.0 and 3.1 documents are read (this one says openapi: ${String(doc.openapi ?? doc)})`);
  }
  return doc;
}
