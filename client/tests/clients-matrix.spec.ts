import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClientRequirements } from '../harness/requirements.ts';
import { MATRIX_CLIENTS } from '../matrix/adapters.ts';
import { KNOWN_VERDICTS } from '../matrix/known-verdicts.ts';
import type { Matrix } from '../matrix/run-matrix.ts';
import { readResults } from '../../spec/results.ts';
import { ROOT } from './support/certify.ts';

/**
 * client → requirement → outcome, from a matrix. A timing too late to judge is neither a pass nor a
 * fail (D-CLIENT-TIMING): with `known`, such a cell stands for the known verdict, and is listed in `unjudged`.
 */
function cellsOf(matrix: Matrix, known?: Record<string, Record<string, string>>, unjudged: string[] = []): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const client of matrix.clients)
    out[client.name] = Object.fromEntries(
      matrix.requirements.map((r) => {
        const cell = r.cells[client.name];
        const expected = known?.[client.name]?.[r.id];
        if (expected !== undefined && cell?.outcome === 'skipped' && (cell.evidence ?? '').startsWith('inconclusive')) {
          unjudged.push(`${client.name} ${r.id} (known: ${expected}): ${cell.evidence ?? ''}`);
          return [r.id, expected];
        }
        return [r.id, cell?.outcome ?? 'missing'];
      }),
    );
  return out;
}

function expectedCells(): Record<string, Record<string, string>> {
  return Object.fromEntries(
    MATRIX_CLIENTS.map((c) => [
      c.name,
      Object.fromEntries(loadClientRequirements().map((r) => [r.id, KNOWN_VERDICTS[c.name]?.[r.id]?.outcome ?? 'not written down'])),
    ]),
  );
}

test('every client of the matrix has a known verdict, with its reason, for every client requirement; failures say how to fix them', () => {
  const ids = loadClientRequirements().map((r) => r.id).sort();
  for (const client of MATRIX_CLIENTS) {
    const known = KNOWN_VERDICTS[client.name] ?? {};
    expect(Object.keys(known).sort(), client.name).toEqual(ids);
    for (const [id, verdict] of Object.entries(known)) {
      expect(verdict.why.length, `${client.name} ${id}`).toBeGreaterThan(10);
      if (verdict.outcome === 'failed' || verdict.outcome === 'warning')
        expect(verdict.fix, `${client.name} ${id}`).toMatch(/^(configuration|the platform fetch cannot)/);
    }
  }
});

test('the published matrix (client/clients-matrix.json) shows the known verdicts', () => {
  const published = JSON.parse(readFileSync(join(ROOT, 'client/clients-matrix.json'), 'utf8')) as Matrix;
  expect(cellsOf(published)).toEqual(expectedCells());
  const readme = readFileSync(join(ROOT, 'client/README.md'), 'utf8');
  const table = readFileSync(join(ROOT, 'client/clients-matrix.md'), 'utf8').split('\n\n')[0] ?? '';
  expect(readme, 'the README shows the current table').toContain(table.trim());
});

// Alone on the machine (playwright.config.ts, phase `matrix`); how long it takes is a speed target, not a verdict.
test('npm run clients:matrix certifies every library in real time, concurrently, and each verdict is the known one', { tag: '@alone' }, async () => {
  test.setTimeout(480_000);
  const out = mkdtempSync(join(tmpdir(), 'hac-clients-matrix-'));
  const load = loadavg()[0] ?? 0;
  try {
    const started = performance.now();
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('npm', ['run', 'clients:matrix', '--', '--out', out], { cwd: ROOT });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('close', (c) => resolve({ code: c, stdout: text }));
    });
    const wall = performance.now() - started;
    test.info().annotations.push({ type: 'matrix duration', description: `${Math.round(wall)} ms wall, load average ${load.toFixed(1)} at the start` });
    expect(code, stdout).toBe(0);
    const matrix = JSON.parse(readFileSync(join(out, 'clients-matrix.json'), 'utf8')) as Matrix;
    expect(matrix.clients.filter((c) => !c.complete).map((c) => `${c.name}: ${c.errors.join('; ')}`)).toEqual([]);
    const unjudged: string[] = [];
    expect(cellsOf(matrix, expectedCells(), unjudged), readFileSync(join(out, 'clients-matrix.md'), 'utf8')).toEqual(expectedCells());
    if (unjudged.length > 0) test.info().annotations.push({ type: 'too late to judge', description: unjudged.join('\n') });
    expect(matrix.clients.map((c) => c.versions).join(' ')).toMatch(/ky@\d+.*got@\d+.*axios@\d+.*axios-retry@\d+.*undici@\d+.*p-retry@\d+/);
    // Each client's full results.json is kept beside the matrix, and matches results.schema.json.
    expect(readdirSync(join(out, 'clients-matrix-results'))).toHaveLength(MATRIX_CLIENTS.length);
    for (const file of readdirSync(join(out, 'clients-matrix-results'))) expect(readResults(join(out, 'clients-matrix-results', file)).kind).toBe('client');
    // Every real-time scenario of every client runs at once; the longest scenario is ~17 s of waits,
    // the rest is starting ~230 adapter processes (50-70 s of CPU). Measured: 45 s at load average
    // 13.7 (12 samples), 76-85 s at 18-28, 107-113 s at 29-43 and inside a full npm test. How fast
    // the matrix runs is a speed target, not a verdict: the wall time is annotated above, and only a
    // run that does not end (the test's own timeout) fails.
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
