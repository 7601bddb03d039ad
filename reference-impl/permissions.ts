/**
 * Who may call a route (spec/decisions.md D-AUTH): the permissions a token carries, and the access
 * rule each route declares with `access(…)` (middleware/auth.ts).
 */
export type Permission = 'users:write' | 'orders:read' | 'orders:write' | 'payments:read' | 'payments:write' | 'posts:write';

export const ALL_PERMISSIONS: readonly Permission[] = ['users:write', 'orders:read', 'orders:write', 'payments:read', 'payments:write', 'posts:write'];

/** `public`: no token needed; `authenticated`: any valid token; else the permission required. */
export type Access = 'public' | 'authenticated' | Permission;
