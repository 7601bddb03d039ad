/** The caller's account (spec/decisions.md D-FIELDS `account`): the token's user, read-only. */
import { RouteSet } from './route-set.ts';
import type { Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { accountRepresentation } from '../representations.ts';
import { getOr404 } from './common.ts';

/** The account router. */
export function accountRoutes({ stores }: Deps): RouteSet {
  const router = new RouteSet();
  router.get('/account', async (ctx) => {
    const principal = principalOf(ctx);
    const user = await getOr404(stores.resources, 'users', principal.userId);
    ctx.body = accountRepresentation(user, principal);
  });
  return router;
}
