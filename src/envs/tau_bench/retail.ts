// tau-bench retail tools, ported from tau_bench/envs/retail/tools/*.py: each check, error text and
// effect in the original order over Python values (gift-card balances rounded with Python's round,
// price differences summed from int 0, partial effects before an exception kept). Records are made
// the episode's own (db.own) before they change. Descriptions are written for this port; names,
// parameters, types and required lists are the original interface.
import { jsonDumps as dumps } from '../../py/format.js';
import {
  abs,
  add,
  append,
  compare,
  contains,
  countOf,
  deepCopy,
  dict,
  eq,
  extend,
  firstWhere,
  getItem,
  iterate,
  len,
  lower,
  round,
  setItem,
  sorted,
  str,
  sub,
  truthy,
  zip2,
  PyDict,
  type PyValue,
} from '../../py/ops.js';
import { compareCodePoints } from '../../py/values.js';
import type { TauDb } from './db.js';
import { calculateTool, thinkTool, transferTool } from './common.js';
import { fnSchema, type TauTool } from './tool.js';

const MOD = 'tau_bench.envs.retail.tools';
const s = (description: string) => ({ type: 'string', description });
const g = (x: PyValue, k: PyValue): PyValue => getItem(x, k);
const orderId = s("The order id, starting with '#', e.g. '#W0000000'.");
const itemList = (d: string) => ({ type: 'array', items: { type: 'string' }, description: d });
const paymentMethodId = s("A payment method id from the user's profile, e.g. 'gift_card_0000000' or 'credit_card_0000000'.");
const addressProps = {
  address1: s("First address line, e.g. '123 Main St'."),
  address2: s("Second address line, e.g. 'Apt 1' (may be empty)."),
  city: s("City, e.g. 'San Francisco'."),
  state: s("State, e.g. 'CA'."),
  country: s("Country, e.g. 'USA'."),
  zip: s("ZIP code, e.g. '12345'."),
};

function address(a: Readonly<Record<string, PyValue>>): PyDict {
  return dict([
    ['address1', a.address1!],
    ['address2', a.address2!],
    ['city', a.city!],
    ['state', a.state!],
    ['country', a.country!],
    ['zip', a.zip!],
  ]);
}

/** The user's payment methods (`data["users"][order["user_id"]]["payment_methods"]`). */
const methodsOf = (db: TauDb, userId: PyValue) => g(g(db.table('users'), userId), 'payment_methods');

/** Checks shared by exchange and modify: every id exists often enough, lists match, new variants available; the price difference. */
function itemSwap(db: TauDb, order: PyValue, itemIds: PyValue, newItemIds: PyValue): { error: string } | { diff: PyValue } {
  const products = db.table('products');
  const all = iterate(g(order, 'items')).map((item) => g(item, 'item_id'));
  for (const id of iterate(itemIds)) {
    if (compare(countOf(itemIds, id), countOf(all, id), '>')) return { error: `Error: ${str(id)} not found` };
  }
  if (!eq(len(itemIds), len(newItemIds))) return { error: 'Error: the number of items to be exchanged should match' };
  let diff: PyValue = 0n;
  for (const [id, newId] of zip2(itemIds, newItemIds)) {
    const item = firstWhere(g(order, 'items'), (it) => eq(g(it, 'item_id'), id));
    const productId = g(item, 'product_id');
    const variants = g(g(products, productId), 'variants');
    if (!(contains(variants, newId) && truthy(g(g(variants, newId), 'available')))) return { error: `Error: new item ${str(newId)} not found or available` };
    diff = add(diff, sub(g(g(variants, newId), 'price'), g(item, 'price')), '+=');
  }
  return { diff };
}

const cancelPendingOrder: TauTool = {
  name: 'cancel_pending_order',
  pyClass: 'CancelPendingOrder',
  pyModule: `${MOD}.cancel_pending_order`,
  params: ['order_id', 'reason'],
  schema: fnSchema(
    'cancel_pending_order',
    "Cancel a pending order. Needs the user's explicit confirmation (yes) of the order and the reason. Paid amounts go back to their payment methods; gift cards are refunded at once.",
    { order_id: orderId, reason: { type: 'string', enum: ['no longer needed', 'ordered by mistake'], description: 'Why the order is cancelled.' } },
  ),
  invoke(db, a) {
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    const order = g(orders, a.order_id!);
    if (!eq(g(order, 'status'), 'pending')) return 'Error: non-pending order cannot be cancelled';
    if (!contains(['no longer needed', 'ordered by mistake'], a.reason!)) return 'Error: invalid reason';
    const o = db.own('orders', a.order_id!);
    const refunds: PyValue[] = [];
    for (const payment of iterate(g(o, 'payment_history'))) {
      const pid = g(payment, 'payment_method_id');
      refunds.push(
        dict([
          ['transaction_type', 'refund'],
          ['amount', g(payment, 'amount')],
          ['payment_method_id', pid],
        ]),
      );
      if (contains(pid, 'gift_card')) {
        const m = g(g(db.own('users', g(o, 'user_id')), 'payment_methods'), pid);
        setItem(m, 'balance', add(g(m, 'balance'), g(payment, 'amount'), '+='));
        setItem(m, 'balance', round(g(m, 'balance'), 2));
      }
    }
    setItem(o, 'status', 'cancelled');
    setItem(o, 'cancel_reason', a.reason!);
    extend(g(o, 'payment_history'), refunds);
    return dumps(o);
  },
};

const exchangeDeliveredOrderItems: TauTool = {
  name: 'exchange_delivered_order_items',
  pyClass: 'ExchangeDeliveredOrderItems',
  pyModule: `${MOD}.exchange_delivered_order_items`,
  params: ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  schema: fnSchema(
    'exchange_delivered_order_items',
    'Exchange items of a delivered order for other variants of the same products. Can be done once per order; needs explicit confirmation of the items and the payment method for the price difference.',
    {
      order_id: orderId,
      item_ids: itemList('Item ids to exchange (an id may repeat).'),
      new_item_ids: itemList('The new item ids, position by position with item_ids; each must be an available variant of the same product.'),
      payment_method_id: paymentMethodId,
    },
  ),
  invoke(db, a) {
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    const order = g(orders, a.order_id!);
    if (!eq(g(order, 'status'), 'delivered')) return 'Error: non-delivered order cannot be exchanged';
    const swap = itemSwap(db, order, a.item_ids!, a.new_item_ids!);
    if ('error' in swap) return swap.error;
    const diff = round(swap.diff, 2);
    if (!contains(methodsOf(db, g(order, 'user_id')), a.payment_method_id!)) return 'Error: payment method not found';
    const method = g(methodsOf(db, g(order, 'user_id')), a.payment_method_id!);
    if (eq(g(method, 'source'), 'gift_card') && compare(g(method, 'balance'), diff, '<'))
      return 'Error: insufficient gift card balance to pay for the price difference';
    const o = db.own('orders', a.order_id!);
    setItem(o, 'status', 'exchange requested');
    setItem(o, 'exchange_items', sorted(a.item_ids!));
    setItem(o, 'exchange_new_items', sorted(a.new_item_ids!));
    setItem(o, 'exchange_payment_method_id', a.payment_method_id!);
    setItem(o, 'exchange_price_difference', diff);
    return dumps(o);
  },
};

const findUserIdByEmail: TauTool = {
  name: 'find_user_id_by_email',
  pyClass: 'FindUserIdByEmail',
  pyModule: `${MOD}.find_user_id_by_email`,
  params: ['email'],
  schema: fnSchema('find_user_id_by_email', 'Find a user id from an email address (case-insensitive).', {
    email: s("The email, e.g. 'something@example.com'."),
  }),
  invoke(db, a) {
    for (const [userId, profile] of db.table('users')) {
      if (lower(g(profile, 'email')) === lower(a.email!)) return userId;
    }
    return 'Error: user not found';
  },
};

const findUserIdByNameZip: TauTool = {
  name: 'find_user_id_by_name_zip',
  pyClass: 'FindUserIdByNameZip',
  pyModule: `${MOD}.find_user_id_by_name_zip`,
  params: ['first_name', 'last_name', 'zip'],
  schema: fnSchema(
    'find_user_id_by_name_zip',
    'Find a user id from first name, last name and ZIP code (names case-insensitive). Use when the user cannot give an email.',
    {
      first_name: s("First name, e.g. 'John'."),
      last_name: s("Last name, e.g. 'Doe'."),
      zip: s("ZIP code, e.g. '12345'."),
    },
  ),
  invoke(db, a) {
    for (const [userId, profile] of db.table('users')) {
      if (
        lower(g(g(profile, 'name'), 'first_name')) === lower(a.first_name!) &&
        lower(g(g(profile, 'name'), 'last_name')) === lower(a.last_name!) &&
        eq(g(g(profile, 'address'), 'zip'), a.zip!)
      ) {
        return userId;
      }
    }
    return 'Error: user not found';
  },
};

const getOrderDetails: TauTool = {
  name: 'get_order_details',
  pyClass: 'GetOrderDetails',
  pyModule: `${MOD}.get_order_details`,
  params: ['order_id'],
  schema: fnSchema('get_order_details', 'Look up an order: status, items, payments.', { order_id: orderId }),
  invoke(db, a) {
    const orders = db.table('orders');
    if (contains(orders, a.order_id!)) return dumps(g(orders, a.order_id!));
    return 'Error: order not found';
  },
};

const getProductDetails: TauTool = {
  name: 'get_product_details',
  pyClass: 'GetProductDetails',
  pyModule: `${MOD}.get_product_details`,
  params: ['product_id'],
  schema: fnSchema('get_product_details', 'Look up a product type and all its variants. A product id is not an item id.', {
    product_id: s("The product id, e.g. '6086499569'."),
  }),
  invoke(db, a) {
    const products = db.table('products');
    if (contains(products, a.product_id!)) return dumps(g(products, a.product_id!));
    return 'Error: product not found';
  },
};

const getUserDetails: TauTool = {
  name: 'get_user_details',
  pyClass: 'GetUserDetails',
  pyModule: `${MOD}.get_user_details`,
  params: ['user_id'],
  schema: fnSchema('get_user_details', "Look up a user's profile, including their orders.", { user_id: s("The user's id, e.g. 'sara_doe_496'.") }),
  invoke(db, a) {
    const users = db.table('users');
    if (contains(users, a.user_id!)) return dumps(g(users, a.user_id!));
    return 'Error: user not found';
  },
};

const listAllProductTypes: TauTool = {
  name: 'list_all_product_types',
  pyClass: 'ListAllProductTypes',
  pyModule: `${MOD}.list_all_product_types`,
  params: [],
  schema: fnSchema('list_all_product_types', 'List every product type (name and product id) in the store.', {}),
  invoke(db) {
    const byName = new PyDict();
    for (const product of db.table('products').values()) {
      const name = g(product, 'name');
      if (typeof name !== 'string') throw new Error('product names are strings in the store data');
      byName.set(name, g(product, 'product_id'));
    }
    return dumps(PyDict.of(byName.entries().sort((x, y) => compareCodePoints(x[0] as string, y[0] as string))));
  },
};

const modifyPendingOrderAddress: TauTool = {
  name: 'modify_pending_order_address',
  pyClass: 'ModifyPendingOrderAddress',
  pyModule: `${MOD}.modify_pending_order_address`,
  params: ['order_id', 'address1', 'address2', 'city', 'state', 'country', 'zip'],
  schema: fnSchema('modify_pending_order_address', 'Change the shipping address of a pending order. Needs explicit confirmation (yes) of the details.', {
    order_id: orderId,
    ...addressProps,
  }),
  invoke(db, a) {
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    if (!eq(g(g(orders, a.order_id!), 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const o = db.own('orders', a.order_id!);
    setItem(o, 'address', address(a));
    return dumps(o);
  },
};

const modifyPendingOrderItems: TauTool = {
  name: 'modify_pending_order_items',
  pyClass: 'ModifyPendingOrderItems',
  pyModule: `${MOD}.modify_pending_order_items`,
  params: ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  schema: fnSchema(
    'modify_pending_order_items',
    'Swap items of a pending order for other variants of the same products. Can be done once per order; needs explicit confirmation of the items and the payment method for the price difference.',
    {
      order_id: orderId,
      item_ids: itemList('Item ids to change (an id may repeat).'),
      new_item_ids: itemList('The new item ids, position by position with item_ids; each must be an available variant of the same product.'),
      payment_method_id: paymentMethodId,
    },
  ),
  invoke(db, a) {
    const products = db.table('products');
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    const order = g(orders, a.order_id!);
    if (!eq(g(order, 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const swap = itemSwap(db, order, a.item_ids!, a.new_item_ids!);
    if ('error' in swap) return swap.error;
    const diff = swap.diff;
    if (!contains(methodsOf(db, g(order, 'user_id')), a.payment_method_id!)) return 'Error: payment method not found';
    const method = g(methodsOf(db, g(order, 'user_id')), a.payment_method_id!);
    if (eq(g(method, 'source'), 'gift_card') && compare(g(method, 'balance'), diff, '<'))
      return 'Error: insufficient gift card balance to pay for the new item';
    const o = db.own('orders', a.order_id!);
    append(
      g(o, 'payment_history'),
      dict([
        ['transaction_type', compare(diff, 0n, '>') ? 'payment' : 'refund'],
        ['amount', abs(diff)],
        ['payment_method_id', a.payment_method_id!],
      ]),
    );
    if (eq(g(method, 'source'), 'gift_card')) {
      const m = g(g(db.own('users', g(o, 'user_id')), 'payment_methods'), a.payment_method_id!);
      setItem(m, 'balance', sub(g(m, 'balance'), diff, '-='));
      setItem(m, 'balance', round(g(m, 'balance'), 2));
    }
    for (const [id, newId] of zip2(a.item_ids!, a.new_item_ids!)) {
      const item = firstWhere(g(o, 'items'), (it) => eq(g(it, 'item_id'), id));
      setItem(item, 'item_id', newId);
      setItem(item, 'price', g(g(g(g(products, g(item, 'product_id')), 'variants'), newId), 'price'));
      // the original shares the variant's options dict; nothing changes it later, so a copy is the same
      setItem(item, 'options', deepCopy(g(g(g(g(products, g(item, 'product_id')), 'variants'), newId), 'options')));
    }
    setItem(o, 'status', 'pending (item modified)');
    return dumps(o);
  },
};

const modifyPendingOrderPayment: TauTool = {
  name: 'modify_pending_order_payment',
  pyClass: 'ModifyPendingOrderPayment',
  pyModule: `${MOD}.modify_pending_order_payment`,
  params: ['order_id', 'payment_method_id'],
  schema: fnSchema('modify_pending_order_payment', 'Pay a pending order with another payment method. Needs explicit confirmation (yes) of the details.', {
    order_id: orderId,
    payment_method_id: paymentMethodId,
  }),
  invoke(db, a) {
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    const order = g(orders, a.order_id!);
    if (!eq(g(order, 'status'), 'pending')) return 'Error: non-pending order cannot be modified';
    const userId = g(order, 'user_id');
    if (!contains(methodsOf(db, userId), a.payment_method_id!)) return 'Error: payment method not found';
    const history = g(order, 'payment_history');
    if (compare(len(history), 1n, '>') || !eq(g(g(history, 0n), 'transaction_type'), 'payment'))
      return 'Error: there should be exactly one payment for a pending order';
    if (eq(g(g(history, 0n), 'payment_method_id'), a.payment_method_id!)) return 'Error: the new payment method should be different from the current one';
    const amount = g(g(history, 0n), 'amount');
    const method = g(methodsOf(db, userId), a.payment_method_id!);
    if (eq(g(method, 'source'), 'gift_card') && compare(g(method, 'balance'), amount, '<')) return 'Error: insufficient gift card balance to pay for the order';
    const o = db.own('orders', a.order_id!);
    const h = g(o, 'payment_history');
    extend(h, [
      dict([
        ['transaction_type', 'payment'],
        ['amount', amount],
        ['payment_method_id', a.payment_method_id!],
      ]),
      dict([
        ['transaction_type', 'refund'],
        ['amount', amount],
        ['payment_method_id', g(g(h, 0n), 'payment_method_id')],
      ]),
    ]);
    if (eq(g(method, 'source'), 'gift_card')) {
      const m = g(g(db.own('users', userId), 'payment_methods'), a.payment_method_id!);
      setItem(m, 'balance', sub(g(m, 'balance'), amount, '-='));
      setItem(m, 'balance', round(g(m, 'balance'), 2));
    }
    if (contains(g(g(h, 0n), 'payment_method_id'), 'gift_card')) {
      const old = g(g(db.own('users', userId), 'payment_methods'), g(g(h, 0n), 'payment_method_id'));
      setItem(old, 'balance', add(g(old, 'balance'), amount, '+='));
      setItem(old, 'balance', round(g(old, 'balance'), 2));
    }
    return dumps(o);
  },
};

const modifyUserAddress: TauTool = {
  name: 'modify_user_address',
  pyClass: 'ModifyUserAddress',
  pyModule: `${MOD}.modify_user_address`,
  params: ['user_id', 'address1', 'address2', 'city', 'state', 'country', 'zip'],
  schema: fnSchema('modify_user_address', "Change a user's default address. Needs explicit confirmation (yes) of the details.", {
    user_id: s("The user's id, e.g. 'sara_doe_496'."),
    ...addressProps,
  }),
  invoke(db, a) {
    if (!contains(db.table('users'), a.user_id!)) return 'Error: user not found';
    const u = db.own('users', a.user_id!);
    setItem(u, 'address', address(a));
    return dumps(u);
  },
};

const returnDeliveredOrderItems: TauTool = {
  name: 'return_delivered_order_items',
  pyClass: 'ReturnDeliveredOrderItems',
  pyModule: `${MOD}.return_delivered_order_items`,
  params: ['order_id', 'item_ids', 'payment_method_id'],
  schema: fnSchema(
    'return_delivered_order_items',
    'Return items of a delivered order. The refund goes to the original payment method or an existing gift card. Needs explicit confirmation of the items and the refund method.',
    { order_id: orderId, item_ids: itemList('Item ids to return (an id may repeat).'), payment_method_id: paymentMethodId },
  ),
  invoke(db, a) {
    const orders = db.table('orders');
    if (!contains(orders, a.order_id!)) return 'Error: order not found';
    const order = g(orders, a.order_id!);
    if (!eq(g(order, 'status'), 'delivered')) return 'Error: non-delivered order cannot be returned';
    if (!contains(methodsOf(db, g(order, 'user_id')), a.payment_method_id!)) return 'Error: payment method not found';
    if (!contains(a.payment_method_id!, 'gift_card') && !eq(a.payment_method_id!, g(g(g(order, 'payment_history'), 0n), 'payment_method_id'))) {
      return 'Error: payment method should be either the original payment method or a gift card';
    }
    const all = iterate(g(order, 'items')).map((item) => g(item, 'item_id'));
    for (const id of iterate(a.item_ids!)) {
      if (compare(countOf(a.item_ids!, id), countOf(all, id), '>')) return 'Error: some item not found';
    }
    const o = db.own('orders', a.order_id!);
    setItem(o, 'status', 'return requested');
    setItem(o, 'return_items', sorted(a.item_ids!));
    setItem(o, 'return_payment_method_id', a.payment_method_id!);
    return dumps(o);
  },
};

/** The retail domain's tools, in the order of tau-bench's ALL_TOOLS. */
export const RETAIL_TOOLS: readonly TauTool[] = [
  calculateTool(`${MOD}.calculate`),
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  findUserIdByEmail,
  findUserIdByNameZip,
  getOrderDetails,
  getProductDetails,
  getUserDetails,
  listAllProductTypes,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
  thinkTool(`${MOD}.think`),
  transferTool(`${MOD}.transfer_to_human_agents`),
];
