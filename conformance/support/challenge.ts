/**
 * The Bearer challenge of a 401 (AUTH-WWW-AUTHENTICATE, D-AUTH), one home for the scripted check and the
 * response rule. RFC 9110 §11.2: `auth-param = token BWS "=" BWS ( token / quoted-string )`, so
 * `error=invalid_token` and `error="invalid_token"` are the same parameter (werkzeug sends the first);
 * only `realm` must be a quoted string (§11.5), which the scripted check asks separately.
 */

/** A Bearer challenge among the challenges of WWW-Authenticate. */
export const BEARER_CHALLENGE = /(^|,)\s*bearer(\s|,|$)/i;

/** The `error` auth-param of RFC 6750 §3.1 with the value invalid_token, as a token or a quoted string. */
export const INVALID_TOKEN_ERROR = /(^|[\s,])error\s*=\s*(invalid_token|"invalid_token")(\s|,|$)/i;
