/**
 * The clients of the compatibility matrix: the reference client and popular HTTP libraries, each
 * behind an adapter of fixtures/clients/ configured with the library's own documented options.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from '../../spec/package-files.ts';

export interface MatrixClient {
  /** Column name in the matrix. */
  name: string;
  /** npm packages whose versions the matrix records. */
  packages: string[];
  /** Adapter file, relative to the package root. */
  adapter: string;
}

export const MATRIX_CLIENTS: MatrixClient[] = [
  { name: 'reference', packages: ['http-api-conformance'], adapter: 'fixtures/clients/reference-client.ts' },
  { name: 'ky', packages: ['ky'], adapter: 'fixtures/clients/libraries/ky.mjs' },
  { name: 'got', packages: ['got'], adapter: 'fixtures/clients/libraries/got.mjs' },
  { name: 'axios + axios-retry', packages: ['axios', 'axios-retry'], adapter: 'fixtures/clients/libraries/axios.mjs' },
  { name: 'undici RetryAgent', packages: ['undici'], adapter: 'fixtures/clients/libraries/undici.mjs' },
  { name: 'fetch + p-retry', packages: ['p-retry'], adapter: 'fixtures/clients/libraries/fetch-p-retry.mjs' },
  { name: 'fetch', packages: [], adapter: 'fixtures/clients/plain-fetch.mjs' },
];

/** The shell command that runs an adapter (TypeScript through tsx). */
export function adapterCommand(client: MatrixClient): string {
  const file = packagePath(client.adapter);
  return client.adapter.endsWith('.ts') ? `node --import tsx ${file}` : `node ${file}`;
}

/** `name@version` of each package of the client, read from its installed package.json (Node's own version for plain fetch). */
export function clientVersions(client: MatrixClient): string {
  if (client.packages.length === 0) return `node ${process.version}`;
  return client.packages
    .map((name) => {
      const file = name === 'http-api-conformance' ? packagePath('package.json') : packagePath('node_modules', name, 'package.json');
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
        return `${name}@${pkg.version ?? '?'}`;
      } catch {
        return `${name} (not installed)`;
      }
    })
    .join(', ');
}
