// tau-bench tool semantics on the shared databases: each observation below is what the original
// Python tool returns for the same call (checked by running tau-bench's own code), and the data
// hashes are tau-bench's get_data_hash() values (sha256 of str(to_hashable(data))).
import { describe, expect, it } from 'vitest';
import { jsonDumps as dumps } from '../../dist/py/format.js';
import { loads } from '../../dist/py/json.js';
import type { PyDict } from '../../dist/py/values.js';
import { compareDbs, loadBase, TauDb } from '../../dist/envs/tau_bench/db.js';
import { loadTasks, readTask, runAction, TAU_DOMAINS } from '../../dist/envs/tau_bench/domain.js';
import { dataPath } from '../helpers/data.js';

// tau-bench's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('tau-bench/airline/flights.json');

type Dom = 'airline' | 'retail';

function step(domain: Dom, name: string, kwargs: string, db = new TauDb(loadBase(domain))) {
  const out = runAction(TAU_DOMAINS[domain], db, { name, kwargs: loads(kwargs) as PyDict });
  return { ...out, db };
}

const BASE_HASH = {
  airline: '4587e6b48ad2b2c4f3e1fecb40aabec7bb2286513273b8f8cec3f5865222f290',
  retail: '5a4b2cb59f4d12dea7e4adff24a7f8fada510ead49372ea4a729a82bbb5f49b5',
};

const F = '[{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}]';
const PAX = '{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}';
const PAY = '[{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}]';
function book(over: Record<string, string> = {}): string {
  const f: Record<string, string> = {
    user_id: '"mia_li_3668"',
    origin: '"JFK"',
    destination: '"SEA"',
    flight_type: '"one_way"',
    cabin: '"economy"',
    flights: F,
    passengers: `[${PAX}]`,
    payment_methods: PAY,
    total_baggages: '3',
    nonfree_baggages: '0',
    insurance: '"no"',
    ...over,
  };
  return `{${Object.entries(f)
    .map(([k, v]) => `"${k}": ${v}`)
    .join(', ')}}`;
}

describe('databases', () => {
  it("load with tau-bench's own data hash", () => {
    for (const d of ['airline', 'retail'] as Dom[]) expect(new TauDb(loadBase(d)).hash()).toBe(BASE_HASH[d]);
  });

  it('the hash after a gold replay is the one tau-bench computes (airline task 0, retail task 0)', () => {
    const want = {
      airline: 'a825bc534ee4abad2f0f36d5d162989dcbae16dd509bd675feb7e9ffc86a1001',
      retail: '5ed21c65cf9e8d0c20ad0210721146bb6abad19bedce7c2e08472311dabbeec8',
    };
    for (const d of ['airline', 'retail'] as Dom[]) {
      const db = new TauDb(loadBase(d));
      for (const a of readTask(loadTasks(d)[0]).actions) runAction(TAU_DOMAINS[d], db, a);
      expect(db.hash()).toBe(want[d]);
    }
  });

  it('an int and a float amount give different databases (150 vs 150.0), as in tau-bench', () => {
    const a = step('airline', 'send_certificate', '{"user_id": "mia_li_3668", "amount": 150.0}');
    const b = step('airline', 'send_certificate', '{"user_id": "mia_li_3668", "amount": 150}');
    expect(a.observation).toBe('Certificate certificate_3221322 added to user mia_li_3668 with amount 150.0.');
    expect(b.observation).toBe('Certificate certificate_3221322 added to user mia_li_3668 with amount 150.');
    expect(a.db.hash()).toBe('c5d1f8c8637999673ad30783b3f4d76af51605159fcbba533dc289cb20c57041');
    expect(b.db.hash()).toBe('e47becd4d44002fb11eaa97ac7e4627a74076924f4bcaea6460520765c4ea237');
    const c = compareDbs(a.db, b.db);
    expect(c.same).toBe(false);
    expect(c.difference).toBe('users["mia_li_3668"].payment_methods.certificate_3221322.amount: 150.0 vs 150');
  });

  it('episodes never change the shared base', () => {
    const before = new TauDb(loadBase('retail')).hash();
    for (const t of loadTasks('retail').slice(0, 20)) {
      const db = new TauDb(loadBase('retail'));
      for (const a of readTask(t).actions) runAction(TAU_DOMAINS.retail, db, a);
    }
    expect(new TauDb(loadBase('retail')).hash()).toBe(before);
  });
});

describe('airline tools: checks and errors as the Python source returns them', () => {
  const unchanged = (r: { db: TauDb }) => expect(r.db.hash()).toBe(BASE_HASH.airline);
  const cases: [string, string, string][] = [
    ['get_user_details', '{"user_id": "nobody_1"}', 'Error: user not found'],
    ['get_reservation_details', '{"reservation_id": "ZZZZZZ"}', 'Error: user not found'],
    ['book_reservation', book({ user_id: '"nobody_1"' }), 'Error: user not found'],
    [
      'book_reservation',
      book({ payment_methods: '[{"payment_id": "credit_card_9999999", "amount": 255}]' }),
      'Error: payment method credit_card_9999999 not found',
    ],
    [
      'book_reservation',
      book({ payment_methods: '[{"payment_id": "credit_card_4421486", "amount": 200}]' }),
      'Error: payment amount does not add up, total price is 255, but paid 200',
    ],
    ['book_reservation', book({ flights: '[{"flight_number": "HAT999", "date": "2024-05-20"}]' }), 'Error: flight HAT999 not found'],
    ['book_reservation', book({ flights: '[{"flight_number": "HAT136", "date": "2023-01-01"}]' }), 'Error: flight HAT136 not found on date 2023-01-01'],
    ['book_reservation', book({ flights: '[{"flight_number": "HAT136", "date": "2024-05-01"}]' }), 'Error: flight HAT136 not available on date 2024-05-01'],
    ['book_reservation', book({ cabin: '"business"', passengers: `[${PAX}, ${PAX}, ${PAX}]` }), 'Error: not enough seats on flight HAT136'],
    [
      'book_reservation',
      book({ payment_methods: '[{"payment_id": "certificate_4856383", "amount": 255}]' }),
      'Error: not enough balance in payment method certificate_4856383',
    ],
    ['book_reservation', book({ cabin: '"first"' }), "Error: 'first'"],
    ['book_reservation', book({ nonfree_baggages: '"1"' }), "Error: unsupported operand type(s) for +=: 'int' and 'str'"],
    ['cancel_reservation', '{"reservation_id": "ZZZZZZ"}', 'Error: reservation not found'],
    [
      'update_reservation_baggages',
      '{"reservation_id": "NO6JO3", "total_baggages": 3, "nonfree_baggages": 1, "payment_id": "certificate_4856383"}',
      'Error: certificate cannot be used to update reservation',
    ],
    [
      'update_reservation_baggages',
      '{"reservation_id": "R9QDGB", "total_baggages": 9, "nonfree_baggages": 9, "payment_id": "gift_card_5309492"}',
      'Error: gift card balance is not enough',
    ],
    [
      'update_reservation_baggages',
      '{"reservation_id": "NO6JO3", "total_baggages": 3, "nonfree_baggages": 1, "payment_id": "credit_card_0000000"}',
      'Error: payment method not found',
    ],
    [
      'update_reservation_flights',
      '{"reservation_id": "NO6JO3", "cabin": "business", "flights": [], "payment_id": "credit_card_0000000"}',
      'Error: payment method not found',
    ],
    ['update_reservation_passengers', `{"reservation_id": "NO6JO3", "passengers": [${PAX}, ${PAX}]}`, 'Error: number of passengers does not match'],
    ['send_certificate', '{"user_id": "nobody_1", "amount": 100}', 'Error: user not found'],
    ['book_reservation', '{"user_id": "mia_li_3668", "bogus": 1}', "Error: BookReservation.invoke() got an unexpected keyword argument 'bogus'"],
    [
      'update_reservation_passengers',
      '{}',
      "Error: UpdateReservationPassengers.invoke() missing 2 required positional arguments: 'reservation_id' and 'passengers'",
    ],
    [
      'get_user_details',
      '{"user_id": "mia_li_3668", "data": {}}',
      "Error: tau_bench.envs.airline.tools.get_user_details.GetUserDetails.invoke() got multiple values for keyword argument 'data'",
    ],
    ['cancel_reservations', '{"reservation_id": "NO6JO3"}', 'Unknown action cancel_reservations'],
    ['get_user_details', '{"user_id": ["mia_li_3668"]}', "Error: unhashable type: 'list'"],
    ['calculate', '{"expression": "10 / (5 - 5)"}', 'Error: division by zero'],
  ];
  for (const [name, kwargs, want] of cases) {
    it(`${name} ${kwargs.length > 70 ? kwargs.slice(0, 70) + '…' : kwargs} → ${want}`, () => {
      const r = step('airline', name, kwargs);
      expect(r.observation).toBe(want);
      expect(r.error).toBe(true);
      unchanged(r);
    });
  }

  it('a successful booking takes the certificate and charges the card; a float amount makes the price a float', () => {
    const r = step('airline', 'book_reservation', book());
    expect(r.error).toBe(false);
    expect(r.observation).toContain('"reservation_id": "HATHAT"');
    const user = r.db.record('users', 'mia_li_3668') as PyDict;
    expect((user.get('payment_methods') as PyDict).has('certificate_7504069')).toBe(false);
    expect(dumps(user.get('reservations')!)).toBe('["NO6JO3", "AIXC49", "HKEG34", "HATHAT"]');
    const f = step(
      'airline',
      'book_reservation',
      book({ nonfree_baggages: '1.5', payment_methods: '[{"payment_id": "credit_card_4421486", "amount": 330.0}]' }),
    );
    expect(f.error).toBe(false); // 255 + 50 * 1.5 = 330.0, a float, equal to the paid 330.0
  });

  it('a repeated certificate deletes it, then fails with a KeyError, and the deletion stays (as in Python)', () => {
    const pay =
      '[{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "certificate_7504069", "amount": 0}, {"payment_id": "credit_card_4421486", "amount": 5}]';
    const r = step('airline', 'book_reservation', book({ payment_methods: pay }));
    expect(r.observation).toBe("Error: 'certificate_7504069'");
    const user = r.db.record('users', 'mia_li_3668') as PyDict;
    expect((user.get('payment_methods') as PyDict).has('certificate_7504069')).toBe(false);
    expect(r.db.record('reservations', 'HATHAT')).toBeUndefined();
  });

  it('update_reservation_flights charges the gift card before it writes the flights: a charge that raises leaves the flights as they were', () => {
    // a gift card balance of 10**400 and a float total: `amount -= total` raises OverflowError (as in Python)
    const db = new TauDb(loadBase('airline'));
    const res = db.own('reservations', 'R9QDGB') as PyDict;
    (res.get('flights') as PyDict[])[0]!.set('price', 143.5);
    const card = ((db.own('users', 'mei_hernandez_8984') as PyDict).get('payment_methods') as PyDict).get('gift_card_5309492') as PyDict;
    card.set('amount', 10n ** 400n);
    const kept =
      '[{"flight_number": "HAT034", "date": "2024-05-28"}, {"flight_number": "HAT026", "date": "2024-05-28"}, {"flight_number": "HAT247", "date": "2024-05-30"}]';
    const r = step(
      'airline',
      'update_reservation_flights',
      `{"reservation_id": "R9QDGB", "cabin": "economy", "flights": ${kept}, "payment_id": "gift_card_5309492"}`,
      db,
    );
    expect(r.observation).toBe('Error: int too large to convert to float');
    expect(((r.db.record('reservations', 'R9QDGB') as PyDict).get('flights') as unknown[]).length).toBe(4);
  });

  it('send_certificate uses three ids, then returns None, which tau-bench cannot turn into an observation', () => {
    const db = new TauDb(loadBase('airline'));
    for (const id of [3221322, 3221323, 3221324])
      expect(step('airline', 'send_certificate', '{"user_id": "mia_li_3668", "amount": 1}', db).observation).toContain(`certificate_${id}`);
    const last = step('airline', 'send_certificate', '{"user_id": "mia_li_3668", "amount": 1}', db);
    expect(last.crash).toMatch(/returned None/);
  });
});

describe('retail tools: checks and errors as the Python source returns them', () => {
  const cases: [string, string, string][] = [
    ['find_user_id_by_email', '{"email": "nobody@example.com"}', 'Error: user not found'],
    ['find_user_id_by_email', '{"email": 5}', "Error: 'int' object has no attribute 'lower'"],
    ['cancel_pending_order', '{"order_id": "#W4817420", "reason": "no longer needed"}', 'Error: non-pending order cannot be cancelled'],
    ['cancel_pending_order', '{"order_id": "#W5918442", "reason": "too expensive"}', 'Error: invalid reason'],
    ['cancel_pending_order', '{"order_id": "W5918442", "reason": "no longer needed"}', 'Error: order not found'],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W5918442", "item_ids": ["1725100896"], "new_item_ids": ["1725100896"], "payment_method_id": "credit_card_5051208"}',
      'Error: non-delivered order cannot be exchanged',
    ],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["1111111111"], "new_item_ids": ["4579334072"], "payment_method_id": "gift_card_8168843"}',
      'Error: 1111111111 not found',
    ],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["6777246137"], "new_item_ids": [], "payment_method_id": "gift_card_8168843"}',
      'Error: the number of items to be exchanged should match',
    ],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["6777246137"], "new_item_ids": ["1434748144"], "payment_method_id": "gift_card_8168843"}',
      'Error: new item 1434748144 not found or available',
    ],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["6777246137"], "new_item_ids": ["4579334072"], "payment_method_id": "paypal_0000000"}',
      'Error: payment method not found',
    ],
    [
      'exchange_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["6777246137", "6777246137"], "new_item_ids": ["4579334072", "4579334072"], "payment_method_id": "gift_card_8168843"}',
      'Error: 6777246137 not found',
    ],
    [
      'modify_pending_order_payment',
      '{"order_id": "#W5918442", "payment_method_id": "credit_card_5051208"}',
      'Error: the new payment method should be different from the current one',
    ],
    [
      'return_delivered_order_items',
      '{"order_id": "#W4817420", "item_ids": ["6777246137"], "payment_method_id": "credit_card_0000000"}',
      'Error: payment method not found',
    ],
    ['get_product_details', '{"product_id": "0000000000"}', 'Error: product not found'],
    [
      'modify_pending_order_address',
      '{"order_id": "#W4817420", "address1": "a", "address2": "b", "city": "c", "state": "d", "country": "e", "zip": "f"}',
      'Error: non-pending order cannot be modified',
    ],
    [
      'modify_pending_order_items',
      '{"order_id": "#W5918442", "item_ids": ["1725100896"], "new_item_ids": ["0000000000"], "payment_method_id": "credit_card_5051208"}',
      'Error: new item 0000000000 not found or available',
    ],
    [
      'modify_user_address',
      '{"user_id": "nobody_1", "address1": "a", "address2": "b", "city": "c", "state": "d", "country": "e", "zip": "f"}',
      'Error: user not found',
    ],
  ];
  for (const [name, kwargs, want] of cases) {
    it(`${name} ${kwargs.length > 70 ? kwargs.slice(0, 70) + '…' : kwargs} → ${want}`, () => {
      const r = step('retail', name, kwargs);
      expect(r.observation).toBe(want);
      expect(r.error).toBe(true);
      expect(r.db.hash()).toBe(BASE_HASH.retail);
    });
  }

  it('user lookups are case-insensitive on names and emails, exact on the ZIP', () => {
    expect(step('retail', 'find_user_id_by_email', '{"email": "SOFIA.ROSSI2645@example.com"}').observation).toBe('sofia_rossi_8776');
    expect(step('retail', 'find_user_id_by_name_zip', '{"first_name": "sofia", "last_name": "ROSSI", "zip": "78784"}').observation).toBe('sofia_rossi_8776');
    expect(step('retail', 'find_user_id_by_name_zip', '{"first_name": "sofia", "last_name": "ROSSI", "zip": "78785"}').observation).toBe(
      'Error: user not found',
    );
  });

  it('cancelling a gift-card-paid order refunds the card at once (int balance + float amount = float), then marks the order', () => {
    const r = step('retail', 'cancel_pending_order', '{"order_id": "#W6779827", "reason": "ordered by mistake"}');
    expect(r.error).toBe(false);
    expect(
      r.observation.endsWith(
        '"payment_history": [{"transaction_type": "payment", "amount": 4079.45, "payment_method_id": "gift_card_7219486"}, {"transaction_type": "refund", "amount": 4079.45, "payment_method_id": "gift_card_7219486"}], "cancel_reason": "ordered by mistake"}',
      ),
    ).toBe(true);
    const card = ((r.db.record('users', 'ethan_lopez_6291') as PyDict).get('payment_methods') as PyDict).get('gift_card_7219486') as PyDict;
    expect(card.get('balance')).toBe(4128.45); // 49 (an int) + 4079.45, rounded: a float
    expect(r.db.changed().map((x) => `${x.table}/${x.key}`)).toEqual(['orders/#W6779827', 'users/ethan_lopez_6291']);
  });
});
