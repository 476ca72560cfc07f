// TravelAPI: BFCL's travel booking system (authentication, credit cards, flight costs, bookings,
// invoices, insurance, budget), ported call for call with its seeded ids (Python's random.Random with
// the scenario's seed) and its quirks (a card number checked against card ids, str * int in
// compute_exchange_rate, the flight-cost cache book_flight reads, long-context cards and bookings
// shared by the episode's instances).
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, getOr, method } from '../api.js';
import { strptime } from '../../../../py/datetime.js';
import { PyException } from '../../../../py/errors.js';
import { pyRepr } from '../../../../py/format.js';
import { add, mul, pyRound, sub, toFloat, truediv } from '../../../../py/num.js';
import { PyRandom } from '../../../../py/random.js';
import { needStr, pyIntDigits, pyIsDigit } from '../../../../py/text.js';
import {
  getitem,
  hashKey,
  needDict,
  PyDict,
  pyCompare,
  pyContains,
  pyEq,
  pyIter,
  PySet,
  PyTuple,
  type PyValue,
  setitem,
  truthy,
} from '../../../../py/values.js';

const ROUTES_TEXT =
  'SFO LAX 200,SFO JFK 500,SFO ORD 400,SFO BOS 450,SFO RMS 300,SFO SBK 350,SFO MPC 370,SFO SVP 320,SFO SHD 330,SFO SSV 340,SFO OKD 360,' +
  'SFO WLB 310,SFO CRH 380,SFO ATV 390,SFO PHV 420,SFO GFD 430,SFO CIA 700,LAX SFO 100,LAX JFK 600,LAX ORD 500,LAX BOS 550,LAX RMS 310,' +
  'LAX SBK 320,LAX MPC 330,LAX SVP 340,LAX SHD 350,LAX SSV 360,LAX OKD 370,LAX WLB 380,LAX CRH 390,LAX ATV 400,LAX PHV 410,LAX GFD 420,' +
  'LAX HND 430,JFK ORD 300,JFK BOS 250,JFK RMS 450,JFK SBK 460,JFK MPC 470,JFK SVP 480,JFK SHD 490,JFK SSV 500,JFK OKD 510,JFK WLB 520,' +
  'JFK CRH 530,JFK ATV 540,JFK PHV 550,JFK GFD 560,JFK LAX 570,JFK HND 800,JFK PVG 950,JFK PEK 1000,ORD LAX 180,ORD BOS 200,ORD RMS 350,' +
  'ORD SBK 360,ORD MPC 370,ORD SVP 380,ORD SHD 390,ORD SSV 400,ORD OKD 410,ORD WLB 420,ORD CRH 430,ORD ATV 440,ORD PHV 450,ORD GFD 460,' +
  'BOS RMS 400,BOS SBK 410,BOS MPC 420,BOS SVP 430,BOS SHD 440,BOS SSV 450,BOS OKD 460,BOS WLB 470,BOS CRH 480,BOS ATV 490,BOS PHV 500,' +
  'BOS GFD 510,RMS BOS 200,RMS JFK 210,RMS SBK 220,RMS MPC 230,RMS SVP 240,RMS SHD 250,RMS SSV 260,RMS OKD 270,RMS WLB 280,RMS CRH 290,' +
  'RMS ATV 300,RMS PHV 310,RMS GFD 320,RMS LAX 330,SBK MPC 200,SBK SVP 210,SBK SHD 220,SBK SSV 230,SBK OKD 240,SBK WLB 250,SBK CRH 260,' +
  'SBK ATV 270,SBK PHV 280,SBK GFD 290,MPC SVP 210,MPC SHD 220,MPC SSV 230,MPC OKD 240,MPC WLB 250,MPC CRH 260,MPC ATV 270,MPC PHV 280,' +
  'MPC GFD 290,SVP SHD 230,SVP SSV 240,SVP OKD 250,SVP WLB 260,SVP CRH 270,SVP ATV 280,SVP PHV 290,SVP GFD 300,SHD SSV 220,SHD OKD 230,' +
  'SHD WLB 240,SHD CRH 250,SHD ATV 260,SHD PHV 270,SHD GFD 280,SSV OKD 240,SSV WLB 250,SSV CRH 260,SSV ATV 270,SSV PHV 280,SSV GFD 290,' +
  'OKD WLB 230,OKD CRH 240,OKD ATV 250,OKD PHV 260,OKD GFD 270,WLB CRH 250,WLB ATV 260,WLB PHV 270,WLB GFD 280,CRH ATV 240,CRH PHV 250,' +
  'CRH GFD 260,CRH SFO 270,CRH RMS 280,CRH HKG 290,CRH JFK 300,ATV PHV 230,ATV GFD 240,PHV GFD 220,LHR CDG 100,OKD LAX 220';

/** Route (from, to) -> base cost in USD, in the original's order. */
const ROUTES: [string, string, bigint][] = ROUTES_TEXT.split(',').map((r) => {
  const [a, b, c] = r.split(' ') as [string, string, string];
  return [a, b, BigInt(c)];
});

const ROUTE_COST = new Map(ROUTES.map(([a, b, c]) => [`${a}|${b}`, c]));

const AIRPORTS = 'RMS SBK MPC SVP SHD CDG LHR SSV OKD WLB PEK HND HKG CIA CRH ATV PHV GFD SFO LAX JFK ORD BOS'.split(' ');

const NEAREST_AIRPORT: Record<string, string> = {
  Rivermist: 'RMS',
  Stonebrook: 'SBK',
  Maplecrest: 'MPC',
  Silverpine: 'SVP',
  Shadowridge: 'SHD',
  London: 'LHR',
  Paris: 'CDG',
  'Sunset Valley': 'SSV',
  Oakendale: 'OKD',
  Willowbend: 'WLB',
  'Crescent Hollow': 'CRH',
  Autumnville: 'ATV',
  Pinehaven: 'PHV',
  Greenfield: 'GFD',
  'San Francisco': 'SFO',
  'Los Angeles': 'LAX',
  'New York': 'JFK',
  Chicago: 'ORD',
  Boston: 'BOS',
  Beijing: 'PEK',
  'Hong Kong': 'HKG',
  Rome: 'CIA',
  Tokyo: 'HND',
};

/** USD -> currency rates, in the original's order (ints stay ints: 7, 110, ...). */
const RATES: [string, string, PyValue][] = [
  ['USD', 'RMB', 7n],
  ['USD', 'EUR', 0.8],
  ['USD', 'JPY', 110n],
  ['USD', 'GBP', 0.7],
  ['USD', 'CAD', 1.3],
  ['USD', 'AUD', 1.4],
  ['USD', 'INR', 70n],
  ['USD', 'RUB', 60n],
  ['USD', 'BRL', 3.8],
  ['USD', 'MXN', 20n],
];

export class TravelAPI extends ApiInstance {
  creditCardList: PyValue = new PyDict();
  bookingRecord: PyValue = new PyDict();
  accessToken: PyValue = null;
  tokenType: PyValue = null;
  tokenExpiresIn: PyValue = null;
  tokenScope: PyValue = null;
  userFirstName: PyValue = null;
  userLastName: PyValue = null;
  budgetLimit: PyValue = null;
  longContext: PyValue = false;
  private random!: PyRandom;
  private flightCostLookup = new PyDict();

  loadScenario(s: PyDict, longContext: boolean): void {
    this.random = new PyRandom(getOr(s, 'random_seed', () => 141053n));
    this.creditCardList = getOr(s, 'credit_card_list', () => new PyDict());
    this.bookingRecord = getOr(s, 'booking_record', () => new PyDict());
    this.accessToken = getOr(s, 'access_token', () => null);
    this.tokenType = getOr(s, 'token_type', () => null);
    this.tokenExpiresIn = getOr(s, 'token_expires_in', () => null);
    this.tokenScope = getOr(s, 'token_scope', () => null);
    this.userFirstName = getOr(s, 'user_first_name', () => null);
    this.userLastName = getOr(s, 'user_last_name', () => null);
    this.budgetLimit = getOr(s, 'budget_limit', () => null);
    this.longContext = longContext;
    if (longContext) {
      for (const [id, info] of needDict(this.env.longContext('CREDIT_CARD_EXTENSION'), 'items').entries()) {
        if (!pyContains(this.creditCardList, id)) setitem(this.creditCardList, id, info);
      }
      for (const [id, info] of needDict(this.env.longContext('BOOKING_RECORD_EXTENSION'), 'items').entries()) {
        if (!pyContains(this.bookingRecord, id)) setitem(this.bookingRecord, id, info);
      }
    }
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['credit_card_list', this.creditCardList],
      ['booking_record', this.bookingRecord],
      ['access_token', this.accessToken],
      ['token_type', this.tokenType],
      ['token_expires_in', this.tokenExpiresIn],
      ['token_scope', this.tokenScope],
      ['user_first_name', this.userFirstName],
      ['user_last_name', this.userLastName],
      ['budget_limit', this.budgetLimit],
      ['long_context', this.longContext],
    ];
  }

  private expired(): boolean {
    return pyEq(this.tokenExpiresIn, 0n);
  }

  authenticateTravel(grantType: PyValue, firstName: PyValue, lastName: PyValue): PyValue {
    this.tokenExpiresIn = 2n;
    this.accessToken = this.random.randint(100000n, 999999n).toString();
    this.tokenType = 'Bearer';
    this.tokenScope = grantType;
    this.userFirstName = firstName;
    this.userLastName = lastName;
    return dict({ expires_in: 2n, access_token: this.accessToken, token_type: 'Bearer', scope: grantType });
  }

  travelGetLoginStatus(): PyValue {
    const notLoggedIn = this.tokenExpiresIn === null || pyEq(this.tokenExpiresIn, 0n);
    return dict({ status: !notLoggedIn });
  }

  registerCreditCard(accessToken: PyValue, cardNumber: PyValue, expirationDate: PyValue, cardholderName: PyValue, cvn: PyValue): PyValue {
    if (this.tokenExpiresIn === null) return dict({ error: 'Token not initialized' });
    if (this.expired()) return dict({ error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ error: 'Invalid access token' });
    if (pyContains(this.creditCardList, cardNumber)) return dict({ error: 'Card already registered' });
    const cardId = this.random.randint(100000000000n, 999999999999n).toString();
    setitem(
      this.creditCardList,
      cardId,
      dict({
        card_number: cardNumber,
        expiration_date: expirationDate,
        cardholder_name: cardholderName,
        card_verification_number: cvn,
        balance: this.random.randint(10000n, 99999n),
      }),
    );
    return dict({ card_id: cardId });
  }

  getFlightCost(from: PyValue, to: PyValue, date: PyValue, travelClass: PyValue): PyValue {
    hashKey(new PyTuple([from, to])); // an unhashable airport is a TypeError, as in the dict lookup
    const base = typeof from === 'string' && typeof to === 'string' ? ROUTE_COST.get(`${from}|${to}`) : undefined;
    if (base === undefined) throw new PyException('ValueError', 'No available route for the given airports.');
    let factor: bigint;
    if (pyEq(travelClass, 'economy')) factor = 1n;
    else if (pyEq(travelClass, 'business')) factor = 2n;
    else if (pyEq(travelClass, 'first')) factor = 5n;
    else throw new PyException('ValueError', 'Invalid travel class. Options are: economy, business, first.');
    let digitSum = 0n;
    for (const ch of pyIter(date)) {
      const c = needStr(ch, 'isdigit');
      if (pyIsDigit(c)) digitSum += pyIntDigits(c);
    }
    const mult = digitSum % 2n === 0n ? 2n : 1n;
    const cost = Number(base * factor * mult);
    let list: PyValue[];
    if (truthy(this.longContext)) {
      this.flightCostLookup = new PyDict();
      list = [];
      for (const [a, b, c] of ROUTES) {
        const v = Number(c * factor * mult);
        this.flightCostLookup.set(`${a}|${b}|${f(travelClass)}|${f(date)}`, dict({ cost: v }));
        list.push(v);
      }
    } else {
      list = [cost];
      this.flightCostLookup = PyDict.of([[`${f(from)}|${f(to)}|${f(travelClass)}|${f(date)}`, dict({ cost })]]);
    }
    return dict({ travel_cost_list: list });
  }

  getCreditCardBalance(accessToken: PyValue, cardId: PyValue): PyValue {
    if (this.expired()) return dict({ error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ error: 'Invalid access token' });
    if (!pyContains(this.creditCardList, cardId)) {
      return dict({ error: `Card not registered. Here are a list of card_id's: ${pyRepr(needDict(this.creditCardList, 'keys').keys())}` });
    }
    return dict({ card_balance: getitem(getitem(this.creditCardList, cardId), 'balance') });
  }

  bookFlight(accessToken: PyValue, cardId: PyValue, date: PyValue, from: PyValue, to: PyValue, travelClass: PyValue): PyValue {
    const fail = (error: string): PyDict => dict({ booking_status: false, error });
    if (this.expired()) return fail('Token expired');
    if (!pyEq(accessToken, this.accessToken)) return fail('Invalid access token');
    if (!pyContains(this.creditCardList, cardId)) return fail('Card not registered');
    const card = getitem(this.creditCardList, cardId);
    if (!pyContains(card, 'balance')) return fail('Balance not found');
    if (!pyContains(AIRPORTS, from)) return fail(`Invalid departure airport code: ${f(from)}`);
    if (!pyContains(AIRPORTS, to)) return fail(`Invalid destination airport code: ${f(to)}`);
    try {
      strptime(date, '%Y-%m-%d');
    } catch (e) {
      if (e instanceof PyException && e.type === 'ValueError') return fail('Invalid date format. Use YYYY-MM-DD.');
      throw e;
    }
    if (!PySet.of(['economy', 'business', 'first']).has(travelClass)) return fail("Invalid travel class. Must be one of {'economy', 'business', 'first'}");
    let travelCost: PyValue;
    try {
      this.getFlightCost(from, to, date, travelClass);
      const entry = this.flightCostLookup.get(`${f(from)}|${f(to)}|${f(travelClass)}|${f(date)}`);
      if (entry === undefined) return fail('No available route for the given parameters');
      travelCost = getitem(entry, 'cost');
    } catch (e) {
      if (e instanceof PyException && e.type === 'ValueError') return fail(e.text());
      throw e;
    }
    if (pyCompare(getitem(card, 'balance'), travelCost, '<')) return fail('Insufficient funds');
    if (this.budgetLimit !== null && pyCompare(getitem(card, 'balance'), this.budgetLimit, '<')) return fail('Balance is less than budget limit');
    setitem(card, 'balance', sub(getitem(card, 'balance'), travelCost));
    const bookingId = this.random.randint(1000000n, 9999999n).toString();
    const transactionId = this.random.randint(10000000n, 99999999n).toString();
    setitem(
      this.bookingRecord,
      bookingId,
      dict({
        card_id: cardId,
        travel_date: date,
        travel_from: from,
        travel_to: to,
        travel_class: travelClass,
        travel_cost: travelCost,
        transaction_id: transactionId,
      }),
    );
    return dict({
      booking_id: bookingId,
      transaction_id: transactionId,
      booking_status: true,
      booking_history: truthy(this.longContext) ? this.bookingRecord : new PyDict(),
    });
  }

  retrieveInvoice(accessToken: PyValue, bookingId: PyValue): PyValue {
    if (this.expired()) return dict({ error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ error: 'Invalid access token' });
    if (!pyContains(this.bookingRecord, bookingId)) return dict({ error: 'Booking not found' });
    const r = getitem(this.bookingRecord, bookingId);
    const invoice = dict({
      booking_id: bookingId,
      travel_date: getitem(r, 'travel_date'),
      travel_from: getitem(r, 'travel_from'),
      travel_to: getitem(r, 'travel_to'),
      travel_class: getitem(r, 'travel_class'),
      travel_cost: getitem(r, 'travel_cost'),
      transaction_id: getitem(r, 'transaction_id'),
    });
    return dict({ invoice });
  }

  getBookingHistory(accessToken: PyValue): PyValue {
    if (this.expired()) return dict({ error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ error: 'Invalid access token' });
    return dict({ booking_history: this.bookingRecord });
  }

  listAllAirports(): PyValue {
    return [...AIRPORTS];
  }

  cancelBooking(accessToken: PyValue, bookingId: PyValue): PyValue {
    if (this.expired()) return dict({ cancel_status: false, error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ cancel_status: false, error: 'Invalid access token' });
    if (!pyContains(this.bookingRecord, bookingId)) return dict({ cancel_status: false, error: 'Booking not found' });
    const r = getitem(this.bookingRecord, bookingId);
    const card = getitem(this.creditCardList, getitem(r, 'card_id'));
    setitem(card, 'balance', add(getitem(card, 'balance'), getitem(r, 'travel_cost')));
    needDict(this.bookingRecord, '__delitem__').pop(bookingId);
    return dict({ cancel_status: true });
  }

  computeExchangeRate(base: PyValue, target: PyValue, value: PyValue): PyValue {
    for (const [a, b, rate] of RATES) {
      if (pyEq(base, a) && pyEq(target, b)) return dict({ exchanged_value: toFloat(mul(value, rate)) });
      if (pyEq(base, b) && pyEq(target, a)) return dict({ exchanged_value: pyRound(truediv(value, rate), 2n) });
    }
    throw new PyException('ValueError', 'No available exchange rate for the given currencies.');
  }

  verifyTravelerInformation(firstName: PyValue, lastName: PyValue, dateOfBirth: PyValue, passportNumber: PyValue): PyValue {
    if (!pyEq(this.userFirstName, firstName) || !pyEq(this.userLastName, lastName)) {
      return dict({
        verification_status: false,
        verification_failure: `Cannot book flight information for another user.Expected ${f(this.userFirstName)} ${f(this.userLastName)}, got ${f(firstName)} ${f(lastName)}`,
      });
    }
    let birth: number[];
    try {
      birth = strptime(dateOfBirth, '%Y-%m-%d');
    } catch (e) {
      if (e instanceof PyException && e.type === 'ValueError') {
        return dict({ verification_status: false, verification_failure: 'Invalid date of birth format. Please use YYYY-MM-DD.' });
      }
      throw e;
    }
    const [ty, tm, td] = this.env.today();
    const before = tm < birth[1]! || (tm === birth[1]! && td < birth[2]!);
    const age = ty - birth[0]! - (before ? 1 : 0);
    if (age < 18) return dict({ verification_status: false, verification_failure: 'Traveler must be at least 18 years old.' });
    if (!needStr(passportNumber, 'startswith').startsWith('US')) {
      return dict({ verification_status: false, verification_failure: 'Passport must be issued by the United States.' });
    }
    return dict({ verification_status: true });
  }

  setBudgetLimit(accessToken: PyValue, budgetLimit: PyValue): PyValue {
    if (this.expired()) return dict({ error: 'Token expired' });
    if (!pyEq(accessToken, this.accessToken)) return dict({ error: 'Invalid access token' });
    const limit = toFloat(budgetLimit);
    this.budgetLimit = limit;
    return dict({ budget_limit: limit });
  }

  getNearestAirportByCity(location: PyValue): PyValue {
    return dict({ nearest_airport: dict(NEAREST_AIRPORT).get(location) ?? 'Unknown' });
  }

  purchaseInsurance(accessToken: PyValue, bookingId: PyValue, insuranceCost: PyValue, cardId: PyValue): PyValue {
    const fail = (error: string): PyDict => dict({ insurance_status: false, error });
    if (this.expired()) return fail('Token expired');
    if (!pyEq(accessToken, this.accessToken)) return fail('Invalid access token');
    if (this.budgetLimit !== null && pyCompare(this.budgetLimit, insuranceCost, '<')) return fail('Exceeded budget limit');
    if (!pyContains(this.bookingRecord, bookingId)) return fail('Booking not found');
    if (!pyContains(this.creditCardList, cardId)) return fail('Credit card not registered');
    const card = getitem(this.creditCardList, cardId);
    setitem(card, 'balance', sub(getitem(card, 'balance'), insuranceCost));
    return dict({ insurance_id: this.random.randint(100000000n, 999999999n).toString(), insurance_status: true });
  }

  contactCustomerSupport(bookingId: PyValue): PyValue {
    if (!pyContains(this.bookingRecord, bookingId)) return dict({ error: 'Booking not found' });
    return dict({
      customer_support_message: 'Thank you for contacting customer support. Your message has been received and we will get back to you shortly.',
    });
  }

  getAllCreditCards(): PyValue {
    return dict({ credit_card_list: this.creditCardList });
  }
}

type T = TravelAPI;
const opt = (name: string): [string, () => PyValue] => [name, () => null];
export const TravelAPIClass: ApiClass<T> = {
  name: 'TravelAPI',
  create: (env: BfclEnv) => new TravelAPI(env),
  methods: {
    authenticate_travel: method<T>(['client_id', 'client_secret', 'refresh_token', 'grant_type', 'user_first_name', 'user_last_name'], (s, a) =>
      s.authenticateTravel(a[3]!, a[4]!, a[5]!),
    ),
    book_flight: method<T>(['access_token', 'card_id', 'travel_date', 'travel_from', 'travel_to', 'travel_class'], (s, a) =>
      s.bookFlight(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!),
    ),
    cancel_booking: method<T>(['access_token', 'booking_id'], (s, [a, b]) => s.cancelBooking(a!, b!)),
    compute_exchange_rate: method<T>(['base_currency', 'target_currency', 'value'], (s, [a, b, c]) => s.computeExchangeRate(a!, b!, c!)),
    contact_customer_support: method<T>(['booking_id', 'message'], (s, [a]) => s.contactCustomerSupport(a!)),
    get_all_credit_cards: method<T>([], (s) => s.getAllCreditCards()),
    get_booking_history: method<T>(['access_token'], (s, [a]) => s.getBookingHistory(a!)),
    get_budget_fiscal_year: method<T>([opt('lastModifiedAfter'), opt('includeRemoved')], () => dict({ budget_fiscal_year: '2018' })),
    get_credit_card_balance: method<T>(['access_token', 'card_id'], (s, [a, b]) => s.getCreditCardBalance(a!, b!)),
    get_flight_cost: method<T>(['travel_from', 'travel_to', 'travel_date', 'travel_class'], (s, [a, b, c, d]) => s.getFlightCost(a!, b!, c!, d!)),
    get_nearest_airport_by_city: method<T>(['location'], (s, [a]) => s.getNearestAirportByCity(a!)),
    list_all_airports: method<T>([], (s) => s.listAllAirports()),
    purchase_insurance: method<T>(['access_token', 'insurance_type', 'booking_id', 'insurance_cost', 'card_id'], (s, a) =>
      s.purchaseInsurance(a[0]!, a[2]!, a[3]!, a[4]!),
    ),
    register_credit_card: method<T>(['access_token', 'card_number', 'expiration_date', 'cardholder_name', 'card_verification_number'], (s, a) =>
      s.registerCreditCard(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!),
    ),
    retrieve_invoice: method<T>(['access_token', opt('booking_id'), opt('insurance_id')], (s, [a, b]) => s.retrieveInvoice(a!, b!)),
    set_budget_limit: method<T>(['access_token', 'budget_limit'], (s, [a, b]) => s.setBudgetLimit(a!, b!)),
    travel_get_login_status: method<T>([], (s) => s.travelGetLoginStatus()),
    verify_traveler_information: method<T>(['first_name', 'last_name', 'date_of_birth', 'passport_number'], (s, a) =>
      s.verifyTravelerInformation(a[0]!, a[1]!, a[2]!, a[3]!),
    ),
  },
};
