/**
 * The command-line options of every sub-command (run, serve, init, client-check): node:util parseArgs
 * in strict mode without positional arguments, and one wording for what is wrong: the problem, then
 * how to put it right. A command catches UsageError, prints its message and its usage, and exits 2.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

/** An unusable command line: the message names the problem and the fix. */
export class UsageError extends Error {}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The option named in one of node's parseArgs messages (`Option '--port <value>' argument missing`). */
function optionIn(message: string): string {
  return /'(-[^' ]+)/.exec(message)?.[1] ?? 'an option';
}

/** node's parseArgs error, reworded as the problem and its fix. */
function usageProblem(error: Error & { code?: string }): string {
  const option = optionIn(error.message);
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option "${option}" (the options are listed below)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${/'([^']*)'/.exec(error.message)?.[1] ?? ''}": every value follows its option (--name value)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value: give ${option} alone`;
      if (/ambiguous/.test(error.message)) return `the value of ${option} starts with "-": write ${option}=VALUE`;
      return `${option} needs a value: ${option} VALUE`;
    default:
      return error.message;
  }
}

/**
 * What a command does with its command line: the options `parse` returns, or the exit code when there
 * is nothing to run: 0 after printing `usage` for --help (`parse` returns 'help'), 2 after printing
 * `<name>: <problem>` and `usage` on stderr for a UsageError.
 */
export function optionsOrExit<T>(name: string, usage: string, parse: () => T | 'help'): T | 0 | 2 {
  let options: T | 'help';
  try {
    options = parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${name}: ${error.message}\n\n${usage}`);
    return 2;
  }
  if (options === 'help') {
    console.log(usage);
    return 0;
  }
  return options;
}

/** Parses `args` against `options` (strict, no positionals); throws UsageError. */
export function parseOptions<const O extends OptionsConfig>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(usageProblem(error as Error & { code?: string }));
  }
}

/** `raw` as a whole number from `min` to `max`, or undefined when the option was not given. */
export function wholeNumber(option: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`${option} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** `raw` when it is one of `allowed`. */
export function oneOf<const T extends string>(option: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new UsageError(`${option} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw as T;
}

/** `raw` when it is an http(s) URL without a query or fragment (a target's base URL), without trailing slashes. */
export function baseUrl(option: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || /\s/.test(raw)) {
    throw new UsageError(`${option} "${raw}" must be an http(s) URL such as http://127.0.0.1:3000 (no query, no fragment)`);
  }
  return raw.replace(/\/+$/, '');
}
