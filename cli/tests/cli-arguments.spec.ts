/**
 * The one argument helper of the sub-commands (cli/arguments.ts): every command words an unusable
 * command line the same way, naming the problem and the fix.
 */
import { expect, test } from '@playwright/test';
import { baseUrl, oneOf, parseOptions, UsageError, wholeNumber } from '../arguments.ts';
import { parseCheckOptions } from '../client-check/command.ts';
import { parseRunOptions } from '../run/options.ts';
import { parseServeOptions } from '../serve/command.ts';

const OPTIONS = { port: { type: 'string' }, force: { type: 'boolean', default: false } } as const;

function problem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no UsageError');
}

test('node parseArgs errors are reworded as the problem and its fix', () => {
  expect(problem(() => parseOptions(['--colour'], OPTIONS))).toBe('unknown option "--colour" (the options are listed below)');
  expect(problem(() => parseOptions(['--port'], OPTIONS))).toBe('--port needs a value: --port VALUE');
  expect(problem(() => parseOptions(['--force=yes'], OPTIONS))).toBe('--force takes no value: give --force alone');
  expect(problem(() => parseOptions(['--port', '-1'], OPTIONS))).toBe('the value of --port starts with "-": write --port=VALUE');
  expect(problem(() => parseOptions(['stray'], OPTIONS))).toBe('unexpected argument "stray": every value follows its option (--name value)');
  expect(parseOptions(['--port=-1', '--force'], OPTIONS)).toEqual({ port: '-1', force: true });
});

test('values are checked with one wording', () => {
  expect(wholeNumber('--n', undefined, 1, 3)).toBeUndefined();
  expect(wholeNumber('--n', '3', 1, 3)).toBe(3);
  for (const bad of ['0', '4', '2.5', 'x', ''])
    expect(problem(() => wholeNumber('--n', bad, 1, 3))).toBe(`--n must be a whole number from 1 to 3 (got "${bad}")`);
  expect(oneOf('--kind', 'b', ['a', 'b'])).toBe('b');
  expect(problem(() => oneOf('--kind', 'c', ['a', 'b']))).toBe('--kind must be one of a, b (got "c")');
  expect(baseUrl('--target', 'https://api.example.com/v1/')).toBe('https://api.example.com/v1');
  for (const bad of ['ftp://example.com', 'example.com', 'http://example.com/?q=1', 'http://example.com/#top']) {
    expect(problem(() => baseUrl('--target', bad))).toContain(`--target "${bad}" must be an http(s) URL`);
  }
});

test('run, serve and client-check share the wording', () => {
  for (const parse of [parseRunOptions, parseServeOptions, parseCheckOptions]) {
    expect(problem(() => parse(['--bogus']))).toBe('unknown option "--bogus" (the options are listed below)');
  }
  expect(problem(() => parseServeOptions(['--port', '70000']))).toBe('--port must be a whole number from 0 to 65535 (got "70000")');
  expect(problem(() => parseCheckOptions(['--command', 'true', '--concurrency', '0']))).toBe('--concurrency must be a whole number from 1 to 64 (got "0")');
  expect(parseRunOptions(['--help'])).toBe('help');
  expect(parseServeOptions(['--help'])).toBe('help');
  expect(parseCheckOptions(['-h'])).toBe('help');
  const cluster = parseServeOptions(['--redis-cluster', '127.0.0.1:7000,127.0.0.1:7001']);
  expect(cluster).toMatchObject({ overrides: { store: 'redis', redisCluster: ['127.0.0.1:7000', '127.0.0.1:7001'] } });
});

test('--repeat takes a whole number from 1 to 100', () => {
  expect(parseRunOptions([])).toMatchObject({ repeat: 1 });
  expect(parseRunOptions(['--repeat', '5'])).toMatchObject({ repeat: 5 });
  for (const bad of ['0', '101', 'x', '2.5']) {
    expect(problem(() => parseRunOptions(['--repeat', bad]))).toContain('--repeat must be a whole number from 1 to 100');
  }
});
