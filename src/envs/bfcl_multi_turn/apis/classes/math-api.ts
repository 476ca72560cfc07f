// MathAPI: BFCL's stateless calculator (logarithm via mpmath, mean, standard deviation, unit
// conversions, arithmetic, square root via decimal, rounding, percentages, min/max/sum), ported
// call for call: Python's int/float arithmetic, its TypeError catches, mpmath's and decimal's results
// and printed forms.
import { ApiInstance, type ApiClass, type BfclEnv, dict, f, method } from '../api.js';
import { PyDecimal } from '../../../../py/decimal.js';
import { PyException } from '../../../../py/errors.js';
import { logRatio } from '../../../../py/mpf.js';
import { add, mul, pow, pyAbs, pyMinMax, pyRound, pySum, sub, toFloat, truediv } from '../../../../py/num.js';
import { isNumber, PyDict, pyCompare, pyContains, pyEq, pyIter, pyLen, type PyValue, truthy, typeName } from '../../../../py/values.js';

const err = (message: string): PyDict => dict({ error: message });

/** Runs `fn`, answering `{"error": message}` when it raises a Python exception of one of `types` ('*' = any). */
function catching(types: readonly string[], message: string | ((e: PyException) => string), fn: () => PyValue): PyValue {
  try {
    return fn();
  } catch (e) {
    if (e instanceof PyException && (types.includes(e.type) || types.includes('*'))) return err(typeof message === 'string' ? message : message(e));
    throw e;
  }
}

const isIntOrFloat = (v: PyValue): boolean => isNumber(v);

const TO_METERS: [string, PyValue][] = [
  ['km', 1000n],
  ['m', 1n],
  ['cm', 0.01],
  ['mm', 0.001],
  ['um', 1e-6],
  ['nm', 1e-9],
];

const IMPERIAL: [string, number][] = [
  ['cm_to_in', 0.393701],
  ['in_to_cm', 2.54],
  ['m_to_ft', 3.28084],
  ['ft_to_m', 0.3048],
  ['m_to_yd', 1.09361],
  ['yd_to_m', 0.9144],
  ['km_to_miles', 0.621371],
  ['miles_to_km', 1.60934],
  ['kg_to_lb', 2.20462],
  ['lb_to_kg', 0.453592],
  ['celsius_to_fahrenheit', 1.8],
  ['fahrenheit_to_celsius', 5 / 9],
];

export class MathAPI extends ApiInstance {
  loadScenario(): void {}
  stateAttrs(): [string, PyValue][] {
    return [];
  }
}

function mean(numbers: PyValue): PyValue {
  if (!truthy(numbers)) return err('Cannot calculate mean of an empty list');
  return catching(['TypeError'], 'All elements in the list must be numbers', () => dict({ result: truediv(pySum(pyIter(numbers)), pyLen(numbers)) }));
}

function standardDeviation(numbers: PyValue): PyValue {
  if (!truthy(numbers)) return err('Cannot calculate standard deviation of an empty list');
  return catching(['TypeError'], 'All elements in the list must be numbers', () => {
    const m = truediv(pySum(pyIter(numbers)), pyLen(numbers));
    const variance = truediv(pySum(pyIter(numbers).map((x) => pow(sub(x, m), 2n))), pyLen(numbers));
    const v = toFloatStrict(variance);
    if (v < 0) throw new PyException('ValueError', 'math domain error');
    return dict({ result: Math.sqrt(v) });
  });
}

/** math.sqrt's argument conversion: numbers only. */
function toFloatStrict(v: PyValue): number {
  if (!isNumber(v)) throw new PyException('TypeError', `must be real number, not ${typeName(v)}`);
  return toFloat(v);
}

function siUnitConversion(value: PyValue, unitIn: PyValue, unitOut: PyValue): PyValue {
  const toMeters = PyDict.of(TO_METERS);
  const fromMeters = PyDict.of(TO_METERS.map(([u, factor]) => [u, truediv(1n, factor)]));
  if (!isIntOrFloat(value)) return err('Value must be a number');
  if (!pyContains(toMeters, unitIn) || !pyContains(fromMeters, unitOut)) return err(`Conversion from '${f(unitIn)}' to '${f(unitOut)}' is not supported`);
  return catching(['OverflowError'], 'Conversion resulted in a value too large to represent', () => {
    const inMeters = mul(value, toMeters.item(unitIn));
    return dict({ result: mul(inMeters, fromMeters.item(unitOut)) });
  });
}

function imperialSiConversion(value: PyValue, unitIn: PyValue, unitOut: PyValue): PyValue {
  const conversion = PyDict.of(IMPERIAL);
  if (!isIntOrFloat(value)) return err('Value must be a number');
  if (pyEq(unitIn, unitOut)) return dict({ result: value });
  const key = `${f(unitIn)}_to_${f(unitOut)}`;
  if (!conversion.has(key)) return err(`Conversion from '${f(unitIn)}' to '${f(unitOut)}' is not supported`);
  return catching(['OverflowError'], 'Conversion resulted in a value too large to represent', () => {
    const factor = conversion.item(key);
    let result: PyValue;
    if (pyEq(unitIn, 'celsius') && pyEq(unitOut, 'fahrenheit')) result = add(mul(value, factor), 32n);
    else if (pyEq(unitIn, 'fahrenheit') && pyEq(unitOut, 'celsius')) result = mul(sub(value, 32n), factor);
    else result = mul(value, factor);
    return dict({ result });
  });
}

function squareRoot(number: PyValue, precision: PyValue): PyValue {
  return catching(['TypeError', 'InvalidOperation'], 'Input must be a number or computation resulted in an invalid operation', () => {
    if (pyCompare(number, 0n, '<')) return err('Cannot calculate square root of a negative number');
    if (typeof precision !== 'bigint' && typeof precision !== 'boolean') {
      throw new PyException('TypeError', `'${typeName(precision)}' object cannot be interpreted as an integer`);
    }
    const prec = typeof precision === 'boolean' ? (precision ? 1n : 0n) : precision;
    if (prec < 1n || prec > 999999999999999999n) throw new PyException('ValueError', 'valid range for prec is [1, MAX_PREC]');
    return dict({ result: PyDecimal.from(number).sqrt(Number(prec)) });
  });
}

type A = MathAPI;
const both =
  (fn: (a: PyValue, b: PyValue) => PyValue, message: string) =>
  (_s: A, [a, b]: PyValue[]) =>
    catching(['TypeError'], message, () => dict({ result: fn(a!, b!) }));
const list =
  (which: 'min' | 'max' | 'sum', empty: string) =>
  (_s: A, [numbers]: PyValue[]) => {
    if (!truthy(numbers!)) return err(empty);
    return catching(['TypeError'], 'All elements in the list must be numbers', () => {
      const items = pyIter(numbers!);
      return dict({ result: which === 'sum' ? pySum(items) : pyMinMax(items, which) });
    });
  };

export const MathAPIClass: ApiClass<A> = {
  name: 'MathAPI',
  stateless: true,
  create: (env: BfclEnv) => new MathAPI(env),
  methods: {
    absolute_value: method<A>(['number'], (_s, [a]) => catching(['TypeError'], 'Input must be a number', () => dict({ result: pyAbs(a!) }))),
    add: method<A>(['a', 'b'], both(add, 'Both inputs must be numbers')),
    divide: method<A>(['a', 'b'], (_s, [a, b]) =>
      catching(['TypeError'], 'Both inputs must be numbers', () => (pyEq(b!, 0n) ? err('Cannot divide by zero') : dict({ result: truediv(a!, b!) }))),
    ),
    imperial_si_conversion: method<A>(['value', 'unit_in', 'unit_out'], (_s, [a, b, c]) => imperialSiConversion(a!, b!, c!)),
    logarithm: method<A>(['value', 'base', 'precision'], (_s, [a, b, c]) =>
      catching(
        ['*'],
        (e) => e.text(),
        () => dict({ result: logRatio(a!, b!, c!) }),
      ),
    ),
    max_value: method<A>(['numbers'], list('max', 'Cannot find maximum of an empty list')),
    mean: method<A>(['numbers'], (_s, [a]) => mean(a!)),
    min_value: method<A>(['numbers'], list('min', 'Cannot find minimum of an empty list')),
    multiply: method<A>(['a', 'b'], (_s, [a, b]) => {
      if (!isIntOrFloat(a!) || !isIntOrFloat(b!)) return err('Both inputs must be numbers');
      return catching(['TypeError'], 'Both inputs must be numbers', () => dict({ result: mul(a!, b!) }));
    }),
    percentage: method<A>(['part', 'whole'], (_s, [a, b]) =>
      catching(['TypeError'], 'Both inputs must be numbers', () =>
        pyEq(b!, 0n) ? err('Whole value cannot be zero') : dict({ result: mul(truediv(a!, b!), 100n) }),
      ),
    ),
    power: method<A>(['base', 'exponent'], both(pow, 'Both inputs must be numbers')),
    round_number: method<A>(['number', ['decimal_places', () => 0n]], (_s, [a, b]) =>
      catching(['TypeError'], 'First input must be a number, second input must be an integer', () => dict({ result: pyRound(a!, b!) })),
    ),
    si_unit_conversion: method<A>(['value', 'unit_in', 'unit_out'], (_s, [a, b, c]) => siUnitConversion(a!, b!, c!)),
    square_root: method<A>(['number', 'precision'], (_s, [a, b]) => squareRoot(a!, b!)),
    standard_deviation: method<A>(['numbers'], (_s, [a]) => standardDeviation(a!)),
    subtract: method<A>(['a', 'b'], both(sub, 'Both inputs must be numbers')),
    sum_values: method<A>(['numbers'], list('sum', 'Cannot calculate sum of an empty list')),
  },
};
