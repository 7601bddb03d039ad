/**
 * D-FINDINGS: every failure names its exchange with a curl line that reproduces the request
 * (conformance/transport/curl.ts). The line must send the bytes the suite sent; a large body of one
 * repeated character (STATUS-413-BODY-TOO-LARGE's 2 MiB probe) is rebuilt by the shell.
 */
import { execFileSync } from 'node:child_process';
import { test, expect } from '@playwright/test';
import { curlFor } from '../transport/curl.ts';

/** What the shell passes to curl as the body: the `--data-binary` argument evaluated by bash. */
function shellBody(line: string): string {
  const argument = line.split(' --data-binary ')[1] ?? '';
  return execFileSync('bash', ['-c', `printf %s ${argument}`], { encoding: 'utf8', maxBuffer: 8 * 1024 * 1024 });
}

const sent = (body: string): string => curlFor({ method: 'POST', url: 'http://127.0.0.1:1/payments', headers: { 'content-type': 'application/json' }, body });

test('a 2 MiB body of one character is rebuilt by the shell, byte for byte, on a short line', () => {
  const body = `{"note":"${'x'.repeat(2 * 1024 * 1024)}"}`;
  const line = sent(body);
  expect(line.length).toBeLessThan(300);
  expect(line).toContain(`head -c ${2 * 1024 * 1024} /dev/zero | tr '\\0' 'x'`);
  expect(shellBody(line)).toBe(body);
});

test('a large body without such a run, or with a run of a character the shell would mangle, is quoted whole', () => {
  for (const body of ['ab'.repeat(3000), `'`.repeat(6000), `${'y'.repeat(1023)}${'ab'.repeat(2000)}`]) {
    const line = sent(body);
    expect(line).not.toContain('/dev/zero');
    expect(shellBody(line)).toBe(body);
  }
});

test('the first run of 1,024 equal characters is the one rebuilt, with what comes before and after it', () => {
  const body = `${'q'.repeat(5000)}${'w'.repeat(1500)}"end"`;
  const line = sent(body);
  expect(line).toContain(`head -c 5000 /dev/zero | tr '\\0' 'q'`);
  expect(shellBody(line)).toBe(body);
});
