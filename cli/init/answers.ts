/**
 * What `init` cannot read from an OpenAPI document (D-PROFILE): the tokens, the limited token and
 * the request it is refused, the rate-limit tokens and a fault-injection header. Each comes from a
 * flag; on a terminal the missing ones are asked for (node:readline); an answer still missing
 * becomes a `TODO` marker in the profile, which `run` refuses naming the field.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface Answers {
  /** tokens.valid and tokens.other, in that order. */
  tokens: string[];
  limitedToken?: string;
  /** `METHOD /path` of the request the limited token is refused. */
  limitedRequest?: string;
  /** tokens.rateLimit, then tokens.rateLimitPool. */
  rateLimitTokens: string[];
  faultHeader?: string;
  slowValue?: string;
}

/** The prefix of every marker `init` writes for a value it could not get. */
export const TODO_PREFIX = 'TODO:';

/** A marker for a value still to be given, saying what belongs there. */
export function todo(what: string): string {
  return `${TODO_PREFIX} ${what}`;
}

const words = (line: string): string[] => line.split(/[\s,]+/).filter(Boolean);

/**
 * Asks on `input`/`output` (a terminal) for every answer the flags left out; an empty answer leaves
 * it out. `limitedDefault` is the request offered for the limited token.
 */
export async function askMissing(given: Answers, io: { input: Readable; output: Writable }, limitedDefault: string | undefined): Promise<Answers> {
  const rl = createInterface({ input: io.input, terminal: false });
  // Lines are read through the iterator, which buffers them: answers typed (or piped) ahead are kept.
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    io.output.write(`${question}: `);
    const line = await lines.next();
    return line.done === true ? '' : String(line.value).trim();
  };
  try {
    const answers: Answers = { ...given, tokens: [...given.tokens], rateLimitTokens: [...given.rateLimitTokens] };
    io.output.write('http-api-conformance init needs a few values the OpenAPI document cannot give (empty answer: a TODO marker in the profile).\n');
    if (answers.tokens.length === 0)
      answers.tokens.push(...words(await ask('Bearer token allowed every request the profile exercises (tokens.valid)')).slice(0, 1));
    if (answers.tokens.length === 1)
      answers.tokens.push(...words(await ask("A second caller's token, for owner isolation and per-caller limits (tokens.other)")).slice(0, 1));
    if (answers.limitedToken === undefined) {
      const token = await ask('A valid token that lacks a permission, refused with 403 (tokens.limited.token)');
      if (token !== '') answers.limitedToken = token;
    }
    if (answers.limitedToken !== undefined && answers.limitedRequest === undefined) {
      const request = await ask(`The request it is refused, METHOD /path${limitedDefault ? ` [${limitedDefault}]` : ''}`);
      if (request !== '') answers.limitedRequest = request;
    }
    if (answers.rateLimitTokens.length === 0) {
      answers.rateLimitTokens.push(
        ...words(await ask('Token(s) reserved for the rate-limit checks, on one low-limit plan, separated by spaces (tokens.rateLimit, tokens.rateLimitPool)')),
      );
    }
    if (answers.faultHeader === undefined) {
      const header = await ask('A request header that makes your test deployment answer 500 or 503 (features.faultInjection; empty: none)');
      if (header !== '') answers.faultHeader = header;
    }
    return answers;
  } finally {
    rl.close();
  }
}
