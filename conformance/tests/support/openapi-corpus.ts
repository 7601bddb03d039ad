/**
 * The corpus of public OpenAPI documents nobody on this project wrote (`../shared/openapi-corpus/`
 * beside the repository, or HAC_OPENAPI_CORPUS): read in place, never copied into the repository.
 * Tests that use it skip, saying so, when it is absent.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from './subprocess.ts';

export const CORPUS_DIR = process.env.HAC_OPENAPI_CORPUS ?? resolve(PACKAGE_ROOT, '../shared/openapi-corpus');

/** Why the corpus tests are skipped, or undefined when the corpus is there. */
export const CORPUS_ABSENT = existsSync(CORPUS_DIR)
  ? undefined
  : `the OpenAPI corpus is absent (${CORPUS_DIR}); set HAC_OPENAPI_CORPUS to the folder of ../shared/openapi-corpus`;

/** The documents of the corpus (YAML and JSON files), by file name. */
export function corpusDocuments(): string[] {
  if (CORPUS_ABSENT) return [];
  return readdirSync(CORPUS_DIR).filter((f) => /\.(ya?ml|json)$/i.test(f)).sort();
}

export const corpusPath = (file: string): string => join(CORPUS_DIR, file);
