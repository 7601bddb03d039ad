/**
 * Whether the target answers HEAD and OPTIONS (D-METHODS-IMPLICIT), asked by `init --target`: an
 * OPTIONS on the first collection path (its status, and its `Allow` when it gives one), else a HEAD.
 * Documents rarely list either although most frameworks answer both; the profile's `methods` and
 * `itemMethods` are corrected in place to what the server does, and the finding is returned as one line.
 */
import type { ProfileCollection } from '../../conformance/target/profile.ts';
import { methodOrder } from './draft.ts';
import { TODO_PREFIX } from './answers.ts';

type Answer = { status: number; allow?: string[] } | undefined;

async function ask(url: string, method: string, token: string | undefined): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method,
      headers: token && !token.startsWith(TODO_PREFIX) ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    await response.arrayBuffer();
    const allow = response.headers.get('allow');
    return { status: response.status, ...(allow ? { allow: allow.split(',').map((m) => m.trim().toUpperCase()).filter(Boolean) } : {}) };
  } catch {
    return undefined;
  }
}

/** A method is answered unless refused as not allowed or not implemented (405, 501); undefined when the answer says nothing (no answer, 401, 404...). */
function answered(answer: Answer): boolean | undefined {
  if (answer === undefined) return undefined;
  if (answer.status === 405 || answer.status === 501) return false;
  return answer.status < 400 ? true : undefined;
}

/** Asks `baseUrl` and corrects the collections' HEAD and OPTIONS; returns what was found, for the profile's description. */
export async function probeImplicitMethods(baseUrl: string, collections: ProfileCollection[], token: string | undefined): Promise<string> {
  const first = collections.find((c) => c.methods.includes('GET')) ?? collections[0];
  if (!first) return 'HEAD and OPTIONS: no collection to ask about them';
  const options = await ask(`${baseUrl}${first.path}`, 'OPTIONS', token);
  const head = await ask(`${baseUrl}${first.path}`, 'HEAD', token);
  const optionsAnswered = answered(options);
  const headAnswered = options?.allow && optionsAnswered ? options.allow.includes('HEAD') : answered(head);
  const allowShown = options?.allow ? ` (Allow: ${options.allow.join(', ')})` : '';
  const said = `OPTIONS ${first.path} -> ${options?.status ?? 'no answer'}${allowShown}, HEAD -> ${head?.status ?? 'no answer'}`;
  const apply = (methods: string[], method: string, on: boolean | undefined): string[] => {
    if (on === undefined) return methods;
    if (on && (method !== 'HEAD' || methods.includes('GET'))) return methodOrder([...methods, method]);
    return on ? methods : methods.filter((m) => m !== method);
  };
  for (const c of collections) {
    c.methods = apply(apply(c.methods, 'HEAD', headAnswered), 'OPTIONS', optionsAnswered);
    if (c.itemMethods) c.itemMethods = apply(apply(c.itemMethods, 'HEAD', headAnswered), 'OPTIONS', optionsAnswered);
  }
  const verdict = (on: boolean | undefined, method: string): string =>
    on === undefined ? `${method} unknown (kept as assumed)` : on ? `${method} answered (listed)` : `${method} refused (left out)`;
  return `HEAD and OPTIONS asked of the target (D-METHODS-IMPLICIT): ${said}: ${verdict(headAnswered, 'HEAD')}, ${verdict(optionsAnswered, 'OPTIONS')}.`;
}
