/**
 * Resource representations with their `_links` (spec/decisions.md D-FIELDS, D-ORDER-STATES):
 * stored records carry only data; links are added here. `self` never has a `method`; an order
 * offers `cancel` and `pay` (with `method: "POST"`) only while it is pending.
 */
import type { Principal } from './tokens.ts';
import type { StoredResource } from './stores/types.ts';

type Link = { href: string; method?: string };
type Representation = Record<string, unknown> & { _links: Record<string, Link> };

/** The `fields` of `resource` that are present, in the order of `fields`, followed by `_links`. */
function pick(resource: StoredResource, fields: readonly string[], links: Record<string, Link>): Representation {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = resource[field];
    if (value !== undefined) out[field] = value;
  }
  out._links = links;
  return out as Representation;
}

/** D-FIELDS user. */
export function userRepresentation(user: StoredResource): Representation {
  return pick(user, ['id', 'name', 'email', 'version', 'createdAt'], { self: { href: `/users/${user.id}` }, orders: { href: `/users/${user.id}/orders` } });
}

/** D-FIELDS order with the transitions of D-ORDER-STATES. */
export function orderRepresentation(order: StoredResource): Representation {
  const links: Record<string, Link> = { self: { href: `/orders/${order.id}` } };
  if (order.status === 'pending') {
    links.cancel = { href: `/orders/${order.id}/cancel`, method: 'POST' };
    links.pay = { href: `/orders/${order.id}/payment`, method: 'POST' };
  }
  if (typeof order.paymentId === 'number') links.payment = { href: `/payments/${order.paymentId}` };
  return pick(order, ['id', 'userId', 'status', 'total', 'currency', 'createdAt', 'updatedAt'], links);
}

/** D-FIELDS payment. */
export function paymentRepresentation(payment: StoredResource): Representation {
  return pick(payment, ['id', 'userId', 'amount', 'currency', 'description', 'status', 'transferId', 'createdAt'], {
    self: { href: `/payments/${payment.id}` },
    transfer: { href: `/transfers/${String(payment.transferId)}` },
  });
}

/** D-FIELDS transfer. */
export function transferRepresentation(transfer: StoredResource): Representation {
  return pick(transfer, ['id', 'userId', 'paymentId', 'amount', 'currency', 'status', 'createdAt'], {
    self: { href: `/transfers/${transfer.id}` },
    payment: { href: `/payments/${String(transfer.paymentId)}` },
  });
}

/** D-FIELDS author. */
export function authorRepresentation(author: StoredResource): Representation {
  return pick(author, ['id', 'name', 'bio', 'createdAt'], { self: { href: `/authors/${author.id}` }, posts: { href: `/posts?authorId=${author.id}` } });
}

/** D-FIELDS post. */
export function postRepresentation(post: StoredResource): Representation {
  return pick(post, ['id', 'authorId', 'title', 'body', 'createdAt'], {
      self: { href: `/posts/${post.id}` },
      author: { href: `/authors/${String(post.authorId)}` },
      comments: { href: `/posts/${post.id}/comments` },
    });
}

/** D-FIELDS comment. */
export function commentRepresentation(comment: StoredResource): Representation {
  return pick(comment, ['id', 'postId', 'authorName', 'body', 'createdAt'], {
      self: { href: `/posts/${String(comment.postId)}/comments/${comment.id}` },
      post: { href: `/posts/${String(comment.postId)}` },
    });
}

/** D-FIELDS account: the caller's own user seen through its token. */
export function accountRepresentation(user: StoredResource, principal: Principal): Representation {
  return {
    id: user.id,
    userId: user.id,
    name: user.name,
    email: user.email,
    permissions: [...principal.permissions],
    plan: principal.plan,
    _links: {
      self: { href: '/account' },
      user: { href: `/users/${user.id}` },
      orders: { href: `/users/${user.id}/orders` },
      payments: { href: '/payments' },
    },
  };
}
