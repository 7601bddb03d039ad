/**
 * Bearer token lookup (spec/decisions.md D-AUTH, RFC 6750 §2.1): parses the Authorization header
 * and finds the configured token in constant time.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { TokenConfig } from './config.ts';
import type { Permission } from './permissions.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** The caller behind a known bearer token (D-AUTH). */
export interface Principal {
  userId: number;
  permissions: readonly Permission[];
  plan: string;
  /** `token:<sha256 of the token>`: the caller's key for rate limits and idempotency. */
  callerKey: string;
}

/** What the Authorization header said: nothing, something unusable, or a known token. */
export type Identity =
  | { kind: 'anonymous' }
  | { kind: 'invalid' }
  | { kind: 'token'; principal: Principal };

/**
 * The presented token's digest is written here, not into a new Buffer: `hash(…, 'buffer')` makes
 * Node create an ArrayBuffer from C++ on every call, which cost about as much as the hash itself;
 * the digest as a binary (latin1) string, one byte per character, copied into this buffer is the same 32
 * bytes for less than half the CPU (D-AUTH). `identify` is synchronous, so one buffer serves all.
 */
const presented = Buffer.alloc(32);

interface KnownToken {
  digest: Buffer;
  principal: Principal;
  /** The identity of this token, built once: identities are only read, and one object per request was garbage (D-AUTH). */
  identity: Identity;
}

const ANONYMOUS: Identity = Object.freeze({ kind: 'anonymous' });
/** The identity of a request whose credentials are unusable (D-AUTH): one frozen object, shared. */
export const INVALID_IDENTITY: Identity = Object.freeze({ kind: 'invalid' });

/** A lookup over the configured tokens: `identify(authorizationHeader)` → Identity. */
export interface TokenRegistry {
  identify(header: string | undefined): Identity;
}

/**
 * Builds the registry. Each lookup compares the SHA-256 digest of the presented token with the
 * digest of EVERY configured token using `timingSafeEqual`, without early exit (D-AUTH).
 */
export function createTokenRegistry(tokens: readonly TokenConfig[]): TokenRegistry {
  const known: KnownToken[] = tokens.map((token) => {
    const digest = sha256(token.token);
    const principal: Principal = {
      userId: token.userId,
      permissions: [...token.permissions],
      plan: token.plan,
      callerKey: `token:${digest.toString('hex')}`,
    };
    // Shared by every request of this token: frozen, so code that wrote into it would throw rather than
    // change what the token's other requests see (D-AUTH).
    Object.freeze(principal.permissions);
    Object.freeze(principal);
    return { digest, principal, identity: Object.freeze({ kind: 'token', principal }) };
  });
  return {
    identify(header) {
      if (header === undefined) return ANONYMOUS;
      const match = BEARER.exec(header);
      if (!match?.[1]) return INVALID_IDENTITY;
      presented.write(hash('sha256', match[1], 'binary'), 0, 'latin1');
      let found: Identity | undefined;
      for (const candidate of known) {
        if (timingSafeEqual(candidate.digest, presented) && found === undefined) found = candidate.identity;
      }
      return found ?? INVALID_IDENTITY;
    },
  };
}
