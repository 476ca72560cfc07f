// initial_config into Python values. From JSON text the types are exact (json.loads). From an
// already parsed object an integral number's Python type is lost (5000.0 and 5000 are both 5000),
// so it is restored from where it sits: fields the public BFCL data always writes as floats become
// floats, other integral numbers ints, and the few fields the data writes both ways (TravelAPI card
// balances) are reported as ambiguous, so the caller can grade under each reading. (Integers past
// 2^53 are taken as JSON.parse rounded them: both sides of a grade see the same value.)
import { EnvLimit } from '../../../py/errors.js';
import { fromJs, loads } from '../../../py/json.js';
import { PyDict, type PyValue } from '../../../py/values.js';

/** Config paths (keys, `*` = any key, `[]` = any list item) BFCL's data holds floats at, per class. */
const FLOAT_PATHS: Record<string, string[]> = {
  TradingBot: [
    'account_info.balance',
    'orders.*.price',
    'stocks.*.price',
    'stocks.*.percent_change',
    'stocks.*.volume',
    'stocks.*.MA(5)',
    'stocks.*.MA(20)',
    'transaction_history.[].price',
  ],
  TravelAPI: [
    'budget_limit',
    'credit_card_list.*.budget_limit',
    'credit_card_list.*.credit_limit',
    'booking_record.*.cost',
    'booking_record.*.cost_usd',
    'booking_record.*.price',
    'booking_record.*.travel_cost',
    'booking_record.*.insurance.cost',
    'estimated_distance',
    'estimated_time',
  ],
  VehicleControlAPI: [
    'fuelLevel',
    'batteryVoltage',
    'acTemperature',
    'humidityLevel',
    'parkingBrakeForce',
    'slopeAngle',
    'brakePedalForce',
    'distanceToNextVehicle',
    'frontLeftTirePressure',
    'frontRightTirePressure',
    'rearLeftTirePressure',
    'rearRightTirePressure',
  ],
};

/** Paths the data writes sometimes as ints and sometimes as floats: an integral value there is ambiguous. */
const AMBIGUOUS_PATHS: Record<string, string[]> = {
  TravelAPI: ['credit_card_list.*.balance'],
};

function matches(pattern: string, path: readonly string[]): boolean {
  const parts = pattern.split('.');
  // keys may contain dots ("MA(5)" does not, but be exact): compare segment by segment
  if (parts.length !== path.length) return false;
  return parts.every((p, i) => p === '*' || p === path[i]);
}

export const MAX_AMBIGUOUS = 4;

/** How an object-form initial_config is read. */
export interface Reading {
  /** For the i-th ambiguous integral number (in traversal order): read it as a float? */
  floatAt(i: number): boolean;
}

export interface ReadResult {
  /** Class name -> its scenario (only for keys that are objects). */
  scenarios: Map<string, PyValue>;
  /** Ambiguous integral numbers met, with their paths. */
  ambiguous: string[];
}

/** Reads an initial_config given as JSON text (exact types). */
export function readConfigText(text: string): ReadResult {
  const v = loads(text);
  if (!(v instanceof PyDict)) throw new EnvLimit('initial_config JSON text must hold an object');
  const scenarios = new Map<string, PyValue>();
  for (const [k, x] of v.entries()) if (typeof k === 'string') scenarios.set(k, x);
  return { scenarios, ambiguous: [] };
}

/** Reads an initial_config given as a parsed object, under `reading` for ambiguous numbers. */
export function readConfigObject(cfg: Record<string, unknown>, reading: Reading): ReadResult {
  const scenarios = new Map<string, PyValue>();
  const ambiguous: string[] = [];
  for (const [cls, value] of Object.entries(cfg)) {
    // own keys only: a class named like an Object.prototype property has no paths
    const floats = (Object.hasOwn(FLOAT_PATHS, cls) && FLOAT_PATHS[cls]) || [];
    const amb = (Object.hasOwn(AMBIGUOUS_PATHS, cls) && AMBIGUOUS_PATHS[cls]) || [];
    const v = fromJs(value, (path, n) => {
      if (!Number.isInteger(n)) return n;
      if (floats.some((p) => matches(p, path))) return n;
      if (amb.some((p) => matches(p, path))) {
        const i = ambiguous.length;
        ambiguous.push(`${cls}.${path.join('.')}`);
        return reading.floatAt(i) ? n : BigInt(n);
      }
      return BigInt(n);
    });
    scenarios.set(cls, v);
  }
  return { scenarios, ambiguous };
}
