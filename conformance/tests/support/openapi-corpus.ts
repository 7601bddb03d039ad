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

/**
 * The entry file of each multi-file document of the corpus (a folder), as its SOURCES.md names it. A
 * folder not listed here is returned as it is, and init then refuses it: the corpus tests notice it.
 */
const MULTI_FILE_ENTRIES: Record<string, string> = {
  'algolia-search': 'algolia-search/specs/search/spec.yml',
  'matrix-password-management': 'matrix-password-management/data/api/client-server/password_management.yaml',
  'vonage-application-v2': 'vonage-application-v2/definitions/application.v2.yml',
};

/** The documents of the corpus (YAML and JSON files, and the entry file of each folder), by path inside it. */
export function corpusDocuments(): string[] {
  if (CORPUS_ABSENT) return [];
  return readdirSync(CORPUS_DIR, { withFileTypes: true })
    .flatMap((entry) => {
      if (entry.isDirectory()) return [MULTI_FILE_ENTRIES[entry.name] ?? entry.name];
      return /\.(ya?ml|json)$/i.test(entry.name) ? [entry.name] : [];
    })
    .sort();
}

export const corpusPath = (file: string): string => join(CORPUS_DIR, file);
