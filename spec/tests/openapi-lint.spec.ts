/**
 * spec/openapi.yaml as independent OpenAPI tools read it: Spectral (`spectral:oas`, .spectral.yaml)
 * and Redocly CLI (`recommended`, redocly.yaml) find no error and no warning. Every rule turned off
 * is turned off in those files with its reason; the only findings kept for single components are the
 * unused 405 responses of D-METHODS (.spectral.yaml `overrides`, .redocly.lint-ignore.yaml), which no
 * operation references because no operation describes a 405. A broken copy of the description shows that both
 * linters, run this way, do fail.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { parse as parseYaml } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC = join(ROOT, 'spec/openapi.yaml');
/** No telemetry and no update check: the linters run offline (redocly.yaml says `telemetry: off` too). */
const REDOCLY_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

interface Finding {
  rule: string;
  severity: 'error' | 'warning' | 'info';
  where: string;
  message: string;
}

/** `spectral lint --ruleset .spectral.yaml -f json`: its results (severity 0 error, 1 warning, 2 info, 3 hint). */
function spectral(file: string): Finding[] {
  const run = spawnSync(join(ROOT, 'node_modules/.bin/spectral'), ['lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '-f', 'json', '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const text = run.stdout.trim();
  if (!text.startsWith('[')) throw new Error(`spectral printed no JSON (exit ${run.status}): ${run.stderr}${text}`);
  return (JSON.parse(text) as { code: string; severity: number; path: string[]; message: string }[]).map((r) => ({
    rule: r.code,
    severity: r.severity === 0 ? 'error' : r.severity === 1 ? 'warning' : 'info',
    where: r.path.join('.'),
    message: r.message,
  }));
}

/** `redocly lint --config redocly.yaml --format json`: its problems. */
function redocly(file: string): Finding[] {
  const run = spawnSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: REDOCLY_ENV,
  });
  const text = run.stdout.slice(run.stdout.indexOf('{'));
  const report = JSON.parse(text) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
  return report.problems.map((p) => ({
    rule: p.ruleId,
    severity: p.severity === 'error' ? 'error' : p.severity === 'warn' ? 'warning' : 'info',
    where: p.location[0]?.pointer ?? '',
    message: p.message,
  }));
}

test.describe('spec/openapi.yaml under independent linters', () => {
  test('Spectral (spectral:oas) reports nothing', () => {
    expect(spectral(SPEC)).toEqual([]);
  });

  test('Redocly CLI (recommended) reports nothing', () => {
    expect(redocly(SPEC)).toEqual([]);
  });

  test('the findings kept on purpose are exactly the unused 405 responses of D-METHODS, in both linters', () => {
    const ignored = parseYaml(readFileSync(join(ROOT, '.redocly.lint-ignore.yaml'), 'utf8')) as Record<string, Record<string, string[]>>;
    const kept = ['#/components/responses/MethodNotAllowed', '#/components/responses/UnknownMethodNotAllowed'];
    expect(ignored).toEqual({ 'spec/openapi.yaml': { 'no-unused-components': kept } });
    const ruleset = parseYaml(readFileSync(join(ROOT, '.spectral.yaml'), 'utf8')) as { overrides?: { files: string[]; rules: Record<string, string> }[] };
    expect(ruleset.overrides).toEqual([{ files: kept.map((pointer) => `spec/openapi.yaml${pointer}`), rules: { 'oas3-unused-component': 'off' } }]);
  });

  test('both fail a copy whose 422 is an anyOf of two problem schemas and whose list has no success', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hac-openapi-lint-'));
    try {
      cpSync(join(ROOT, 'spec/schemas'), join(dir, 'schemas'), { recursive: true });
      let text = readFileSync(SPEC, 'utf8');
      const ref = '          schema:\n            $ref: ./schemas/validation-problem.schema.json\n';
      expect(text).toContain(ref);
      text = text.replace(
        ref,
        '          schema:\n            anyOf:\n              - $ref: ./schemas/validation-problem.schema.json\n              - $ref: ' +
        './schemas/problem.schema.json\n',
      );
      const success = text.indexOf('"200":', text.indexOf('operationId: list-users'));
      text = `${text.slice(0, success)}"418":${text.slice(success + '"200":'.length)}`;
      const file = join(dir, 'openapi.yaml');
      writeFileSync(file, text);
      const fromSpectral = spectral(file).filter((f) => f.severity === 'error').map((f) => f.rule);
      expect(fromSpectral).toEqual(expect.arrayContaining(['oas3-valid-media-example', 'operation-success-response']));
      const fromRedocly = redocly(file).filter((f) => f.severity === 'error').map((f) => f.rule);
      expect(fromRedocly).toEqual(expect.arrayContaining(['no-invalid-media-type-examples', 'operation-2xx-response']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
