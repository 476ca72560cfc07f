// TradingBot: BFCL's stock-trading account (orders, balance, watch list, transaction history),
// ported call for call, including its seeded transaction timestamps (Python's random.Random with
// the scenario's seed, 2024-09-01 10:30 plus randint seconds) and the long-context extensions.
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, getOr, method } from '../api.js';
import { compareDateTime, DATETIME_MAX, DATETIME_MIN, type DateTime, formatPlusSeconds, strptime } from '../../../../py/datetime.js';
import { PyException, Unsupported } from '../../../../py/errors.js';
import { formatFixed, pyRepr } from '../../../../py/format.js';
import { add, mul, pyAbs, sub, toFloat, toInt } from '../../../../py/num.js';
import { PyRandom } from '../../../../py/random.js';
import { formatNamed, needStr } from '../../../../py/text.js';
import {
  dictGet,
  getitem,
  listRemove,
  needDict,
  needList,
  PyDict,
  pyCompare,
  pyContains,
  pyEq,
  pyIter,
  type PyValue,
  setitem,
  truthy,
} from '../../../../py/values.js';

const stock = (price: number, change: number, volume: number, ma5: number, ma20: number): PyDict =>
  dict({ price, percent_change: change, volume, 'MA(5)': ma5, 'MA(20)': ma20 });

function defaultState(): Record<string, PyValue> {
  return {
    orders: PyDict.of([
      [12345n, dict({ id: 12345n, order_type: 'Buy', symbol: 'AAPL', price: 210.65, amount: 10n, status: 'Completed' })],
      [12446n, dict({ id: 12446n, order_type: 'Sell', symbol: 'GOOG', price: 2840.56, amount: 5n, status: 'Pending' })],
    ]),
    account_info: dict({ account_id: 12345n, balance: 10000.0, binding_card: 1974202140965533n }),
    authenticated: false,
    market_status: 'Closed',
    order_counter: 12446n,
    stocks: dict({
      AAPL: stock(227.16, 0.17, 2.552, 227.11, 227.09),
      GOOG: stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
      TSLA: stock(667.92, -0.12, 1.654, 671.15, 668.2),
      MSFT: stock(310.23, 0.09, 3.234, 309.88, 310.11),
      NVDA: stock(220.34, 0.34, 1.234, 220.45, 220.67),
      ALPH: stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
      OMEG: stock(457.23, 0.12, 2.345, 456.78, 458.12),
      QUAS: stock(725.89, -0.03, 1.789, 726.45, 728.0),
      NEPT: stock(88.34, 0.19, 0.654, 88.21, 88.67),
      SYNX: stock(345.67, 0.11, 2.112, 345.34, 346.12),
      ZETA: stock(22.09, -0.05, 0.789, 22.12, 22.34),
    }),
    watch_list: ['NVDA'],
    transaction_history: [],
    random_seed: 1053520n,
  };
}

const SYMBOLS: Record<string, string> = {
  Apple: 'AAPL',
  Google: 'GOOG',
  Tesla: 'TSLA',
  Microsoft: 'MSFT',
  Nvidia: 'NVDA',
  'Zeta Corp': 'ZETA',
  'Alpha Tech': 'ALPH',
  'Omega Industries': 'OMEG',
  'Quasar Ltd.': 'QUAS',
  'Neptune Systems': 'NEPT',
  'Synex Solutions': 'SYNX',
  Amazon: 'AMZN',
  Gorilla: 'GORI',
};

const err = (message: string): PyDict => dict({ error: message });
const lower = (v: PyValue): string => needStr(v, 'lower').toLowerCase();

export class TradingBot extends ApiInstance {
  orders: PyValue = new PyDict();
  accountInfo: PyValue = new PyDict();
  authenticated: PyValue = false;
  marketStatus: PyValue = 'Closed';
  orderCounter: PyValue = 0n;
  stocks: PyValue = new PyDict();
  watchList: PyValue = [];
  transactionHistory: PyValue = [];
  longContext: PyValue = false;
  private random!: PyRandom;

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const d = defaultState();
    const orders = getOr(scenario, 'orders', () => d.orders!);
    const converted = new PyDict();
    for (const [k, v] of needDict(orders, 'items').entries()) {
      if (typeof k === 'string' && /^[0-9]+$/.test(k)) converted.set(BigInt(k), v);
      else if (typeof k === 'string' && /\p{N}/u.test(k) && !/\P{N}/u.test(k)) throw new Unsupported(`order id ${pyRepr(k)} uses non-ASCII digits`);
      else converted.set(k, v);
    }
    this.orders = converted;
    this.accountInfo = getOr(scenario, 'account_info', () => d.account_info!);
    this.authenticated = getOr(scenario, 'authenticated', () => d.authenticated!);
    this.marketStatus = getOr(scenario, 'market_status', () => d.market_status!);
    this.orderCounter = getOr(scenario, 'order_counter', () => d.order_counter!);
    this.stocks = getOr(scenario, 'stocks', () => d.stocks!);
    this.watchList = getOr(scenario, 'watch_list', () => d.watch_list!);
    this.transactionHistory = getOr(scenario, 'transaction_history', () => d.transaction_history!);
    this.longContext = longContext;
    this.random = new PyRandom(getOr(scenario, 'random_seed', () => d.random_seed!));
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['orders', this.orders],
      ['account_info', this.accountInfo],
      ['authenticated', this.authenticated],
      ['market_status', this.marketStatus],
      ['order_counter', this.orderCounter],
      ['stocks', this.stocks],
      ['watch_list', this.watchList],
      ['transaction_history', this.transactionHistory],
      ['long_context', this.longContext],
    ];
  }

  private timestamp(): string {
    const offset = this.random.randint(0n, 86400n);
    return formatPlusSeconds([2024, 9, 1, 10, 30, 0], Number(offset));
  }

  getCurrentTime(): PyValue {
    return dict({ current_time: '10:30 AM' });
  }

  getSymbolByName(name: PyValue): PyValue {
    const map = dict(SYMBOLS);
    return dict({ symbol: map.get(name) ?? 'Stock not found' });
  }

  getStockInfo(symbol: PyValue): PyValue {
    if (!pyContains(this.stocks, symbol)) return err(`Stock with symbol '${f(symbol)}' not found.`);
    if (truthy(this.longContext)) {
      const s = needDict(getitem(this.stocks, symbol), 'copy').copy();
      s.set('MA(5)', this.env.longContext('MA_5_EXTENSION'));
      s.set('MA(20)', this.env.longContext('MA_20_EXTENSION'));
      return s;
    }
    return getitem(this.stocks, symbol);
  }

  getOrderDetails(orderId: PyValue): PyValue {
    if (!pyContains(this.orders, orderId)) {
      return err(`Order with ID ${f(orderId)} not found.Here is the list of orders_id: ${pyRepr(needDict(this.orders, 'keys').keys())}`);
    }
    if (truthy(this.longContext)) {
      const order = needDict(getitem(this.orders, orderId), 'copy').copy();
      const symbol = order.item('symbol');
      const ext = new PyDict();
      for (const [k, v] of needDict(this.env.longContext('ORDER_DETAIL_EXTENSION'), 'items').entries()) {
        try {
          ext.set(k, formatNamed(needStr(v, 'format'), { symbol: f(symbol) }));
        } catch (e) {
          if (e instanceof PyException && e.type === 'KeyError') return err(`KeyError during formatting: ${e.text()}`);
          throw e;
        }
      }
      order.set('metadata', ext);
      return order;
    }
    return getitem(this.orders, orderId);
  }

  cancelOrder(orderId: PyValue): PyValue {
    if (!pyContains(this.orders, orderId)) return err(`Order with ID ${f(orderId)} not found.`);
    const order = getitem(this.orders, orderId);
    if (pyEq(getitem(order, 'status'), 'Completed')) return err(`Can't cancel order ${f(orderId)}. Order is already completed.`);
    setitem(order, 'status', 'Cancelled');
    return dict({ order_id: orderId, status: 'Cancelled' });
  }

  placeOrder(orderType: PyValue, symbol: PyValue, priceArg: PyValue, amount: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please log in to place an order.');
    if (!pyContains(this.stocks, symbol)) return err(`Invalid stock symbol: ${f(symbol)}`);
    if (pyCompare(priceArg, 0n, '<=') || pyCompare(amount, 0n, '<=')) return err('Price and amount must be positive values.');
    if (lower(orderType) === 'buy') {
      const totalCost = mul(toFloat(priceArg), toInt(amount));
      const balance = dictGet(this.accountInfo, 'balance', 0n);
      if (pyCompare(totalCost, balance, '>')) {
        return err(`Insufficient funds: required $${formatFixed(toFloat(totalCost), 2)} but only $${formatFixed(toFloat(balance), 2)} available.`);
      }
    }
    const price = toFloat(priceArg);
    const orderId = this.orderCounter;
    setitem(this.orders, orderId, dict({ id: orderId, order_type: orderType, symbol, price, amount, status: 'Open' }));
    this.orderCounter = add(this.orderCounter, 1n);
    return dict({ order_id: orderId, order_type: orderType, status: 'Pending', price, amount });
  }

  withdrawFunds(amount: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please log in to make a transaction.');
    if (!pyEq(this.marketStatus, 'Open')) return err('Market is closed. Transactions are not allowed.');
    if (pyCompare(amount, 0n, '<=')) return err('Transaction amount must be positive.');
    if (pyCompare(amount, getitem(this.accountInfo, 'balance'), '>')) return err('Insufficient funds for withdrawal.');
    setitem(this.accountInfo, 'balance', sub(getitem(this.accountInfo, 'balance'), amount));
    const history = needList(this.transactionHistory, 'append');
    history.push(dict({ type: 'withdrawal', amount, timestamp: this.timestamp() }));
    return dict({ status: 'Withdrawal successful', new_balance: getitem(this.accountInfo, 'balance') });
  }

  getAccountInfo(): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please log in to view account information.');
    return this.accountInfo;
  }

  tradingLogin(): PyValue {
    if (truthy(this.authenticated)) return dict({ status: 'Already logged in' });
    this.authenticated = true;
    return dict({ status: 'Logged in successfully' });
  }

  tradingGetLoginStatus(): PyValue {
    return dict({ status: truthy(this.authenticated) });
  }

  tradingLogout(): PyValue {
    if (!truthy(this.authenticated)) return dict({ status: 'No user is currently logged in' });
    this.authenticated = false;
    return dict({ status: 'Logged out successfully' });
  }

  fundAccount(amount: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please log in to fund the account.');
    if (pyCompare(amount, 0n, '<=')) return err('Funding amount must be positive.');
    setitem(this.accountInfo, 'balance', add(getitem(this.accountInfo, 'balance'), amount));
    const history = needList(this.transactionHistory, 'append');
    history.push(dict({ type: 'deposit', amount, timestamp: this.timestamp() }));
    return dict({ status: 'Account funded successfully', new_balance: getitem(this.accountInfo, 'balance') });
  }

  removeStockFromWatchlist(symbol: PyValue): PyValue {
    if (!truthy(this.authenticated)) return err('User not authenticated. Please log in to modify the watchlist.');
    if (!pyContains(this.watchList, symbol)) return err(`Stock ${f(symbol)} not found in watchlist.`);
    listRemove(this.watchList, symbol);
    return dict({ status: `Stock ${f(symbol)} removed from watchlist successfully.` });
  }

  getWatchlist(): PyValue {
    if (!truthy(this.authenticated)) return ['Error: User not authenticated. Please log in to view the watchlist.'];
    if (truthy(this.longContext)) {
      const list = [...needList(this.watchList, 'copy')];
      list.push(...pyIter(this.env.longContext('WATCH_LIST_EXTENSION')));
      return list;
    }
    return dict({ watchlist: this.watchList });
  }

  getOrderHistory(): PyValue {
    if (!truthy(this.authenticated)) return [dict({ error: 'User not authenticated. Please log in to view order history.' })];
    return dict({ history: needDict(this.orders, 'keys').keys() });
  }

  getTransactionHistory(startDate: PyValue, endDate: PyValue): PyValue {
    if (!truthy(this.authenticated)) return [dict({ error: 'User not authenticated. Please log in to view transaction history.' })];
    const start: DateTime = truthy(startDate) ? strptime(startDate, '%Y-%m-%d') : DATETIME_MIN;
    const end: DateTime = truthy(endDate) ? strptime(endDate, '%Y-%m-%d') : DATETIME_MAX;
    const filtered: PyValue[] = [];
    for (const t of pyIter(this.transactionHistory)) {
      this.env.spend();
      const at = strptime(getitem(t, 'timestamp'), '%Y-%m-%d %H:%M:%S');
      if (compareDateTime(start, at) <= 0 && compareDateTime(at, end) <= 0) filtered.push(t);
    }
    if (truthy(this.longContext)) filtered.push(...pyIter(this.env.longContext('TRANSACTION_HISTORY_EXTENSION')));
    return dict({ transaction_history: filtered });
  }

  getAvailableStocks(sector: PyValue): PyValue {
    const map = dict({ Technology: ['AAPL', 'GOOG', 'MSFT', 'NVDA'], Automobile: ['TSLA', 'F', 'GM'] });
    if (truthy(this.longContext)) {
      (map.item('Technology') as PyValue[]).push(...pyIter(this.env.longContext('TECHNOLOGY_EXTENSION')));
      (map.item('Automobile') as PyValue[]).push(...pyIter(this.env.longContext('AUTOMOBILE_EXTENSION')));
    }
    return dict({ stock_list: map.get(sector) ?? [] });
  }

  private priceOf(symbol: PyValue): PyValue {
    return dictGet(dictGet(this.stocks, symbol, new PyDict()), 'price', 0n);
  }

  filterStocksByPrice(stocks: PyValue, minPrice: PyValue, maxPrice: PyValue): PyValue {
    const out: PyValue[] = [];
    for (const symbol of pyIter(stocks)) {
      this.env.spend();
      if (pyCompare(this.priceOf(symbol), minPrice, '>=') && pyCompare(this.priceOf(symbol), maxPrice, '<=')) out.push(symbol);
    }
    return dict({ filtered_stocks: out });
  }

  addToWatchlist(stockName: PyValue): PyValue {
    if (!pyContains(this.watchList, stockName)) {
      if (pyContains(this.stocks, stockName)) needList(this.watchList, 'append').push(stockName);
    }
    return dict({ watchlist: this.watchList });
  }

  notifyPriceChange(stocks: PyValue, threshold: PyValue): PyValue {
    const changed: PyValue[] = [];
    for (const symbol of pyIter(stocks)) {
      this.env.spend();
      if (pyContains(this.stocks, symbol) && pyCompare(pyAbs(getitem(getitem(this.stocks, symbol), 'percent_change')), threshold, '>=')) changed.push(symbol);
    }
    if (changed.length) return dict({ notification: `Stocks ${changed.map((s) => needStr(s, 'join')).join(', ')} have significant price changes.` });
    return dict({ notification: 'No significant price changes in the selected stocks.' });
  }
}

type T = TradingBot;
export const TradingBotClass: ApiClass<T> = {
  name: 'TradingBot',
  create: (env: BfclEnv) => new TradingBot(env),
  methods: {
    add_to_watchlist: method<T>(['stock'], (s, [a]) => s.addToWatchlist(a!)),
    cancel_order: method<T>(['order_id'], (s, [a]) => s.cancelOrder(a!)),
    filter_stocks_by_price: method<T>(['stocks', 'min_price', 'max_price'], (s, [a, b, c]) => s.filterStocksByPrice(a!, b!, c!)),
    fund_account: method<T>(['amount'], (s, [a]) => s.fundAccount(a!)),
    get_account_info: method<T>([], (s) => s.getAccountInfo()),
    get_available_stocks: method<T>(['sector'], (s, [a]) => s.getAvailableStocks(a!)),
    get_current_time: method<T>([], (s) => s.getCurrentTime()),
    get_order_details: method<T>(['order_id'], (s, [a]) => s.getOrderDetails(a!)),
    get_order_history: method<T>([], (s) => s.getOrderHistory()),
    get_stock_info: method<T>(['symbol'], (s, [a]) => s.getStockInfo(a!)),
    get_symbol_by_name: method<T>(['name'], (s, [a]) => s.getSymbolByName(a!)),
    get_transaction_history: method<T>(
      [
        ['start_date', () => null],
        ['end_date', () => null],
      ],
      (s, [a, b]) => s.getTransactionHistory(a!, b!),
    ),
    get_watchlist: method<T>([], (s) => s.getWatchlist()),
    notify_price_change: method<T>(['stocks', 'threshold'], (s, [a, b]) => s.notifyPriceChange(a!, b!)),
    place_order: method<T>(['order_type', 'symbol', 'price', 'amount'], (s, [a, b, c, d]) => s.placeOrder(a!, b!, c!, d!)),
    remove_stock_from_watchlist: method<T>(['symbol'], (s, [a]) => s.removeStockFromWatchlist(a!)),
    trading_get_login_status: method<T>([], (s) => s.tradingGetLoginStatus()),
    trading_login: method<T>(['username', 'password'], (s) => s.tradingLogin()),
    trading_logout: method<T>([], (s) => s.tradingLogout()),
    withdraw_funds: method<T>(['amount'], (s, [a]) => s.withdrawFunds(a!)),
  },
};
