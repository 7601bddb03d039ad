/** The caller's account (spec/decisions.md D-FIELDS `account`): the token's user, read-only. */
import type { AppContext, Deps } from '../context.ts';
import { principalOf } from '../context.ts';
import { accountRepresentation } from '../representations.ts';
import { getOr404 } from './common.ts';
import { type ResourceRouter, type RouteKit, resourceRouter } from './kit.ts';

/** The account router. */
export function accountRouter({ stores }: Deps, { access }: RouteKit): ResourceRouter {
  const router = resourceRouter();
  router.get('/account', access('authenticated'), async (ctx: AppContext) => {
    const principal = principalOf(ctx);
    const user = await getOr404(stores.resources, 'users', principal.userId);
    ctx.body = accountRepresentation(user, principal);
  });
  return router;
}
