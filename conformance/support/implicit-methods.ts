/**
 * HEAD and OPTIONS that a profile does not list (D-METHODS-IMPLICIT): documents rarely list them and
 * most frameworks answer them (RFC 9110 §9.1 requires HEAD wherever GET is), so a path's successful
 * answer to them is no 405 failure, and an `Allow` that names them is not a wrong set. The HEAD and
 * OPTIONS checks (METHOD-HEAD-AS-GET, METHOD-OPTIONS-ALLOW) judge those answers.
 */
export function implicitMethod(method: string, allowed: readonly string[]): boolean {
  const m = method.toUpperCase();
  return !allowed.includes(m) && (m === 'OPTIONS' || (m === 'HEAD' && allowed.includes('GET')));
}

/** The methods of an `Allow` value that the profile must account for: the implicit ones left out. */
export function explicitAllow(allow: readonly string[], allowed: readonly string[]): string[] {
  return allow.filter((m) => !implicitMethod(m, allowed));
}
