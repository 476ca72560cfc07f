// VehicleControlAPI: BFCL's car (engine, doors, climate, brakes, cruise control, navigation,
// tyres, unit conversions), ported call for call with its seeded random readings (Python's
// random.Random with the scenario's seed) and the long-context extensions.
import { ApiInstance, type ApiClass, type BfclEnv, dict, getOr, method } from '../api.js';
import { add, mod, mul, sub, toFloat, truediv } from '../../../../py/num.js';
import { PyRandom } from '../../../../py/random.js';
import { needStr } from '../../../../py/text.js';
import { getitem, needDict, PyDict, pyCompare, pyContains, pyEq, pyIter, type PyValue, setitem, truthy } from '../../../../py/values.js';

const MAX_FUEL_LEVEL = 50n;
const MIN_FUEL_LEVEL = 0.0;
const MILE_PER_GALLON = 20.0;

const DISTANCES: [string, string, number][] = [
  ['83214', '74532', 750.0],
  ['56108', '62947', 320.0],
  ['71354', '83462', 450.0],
  ['47329', '52013', 290.0],
  ['69238', '51479', 630.0],
  ['94016', '83214', 980.0],
  ['94016', '94704', 600.0],
  ['94704', '08540', 2550.0],
  ['94016', '08540', 1950.0],
  ['62947', '47329', 1053.0],
  ['94016', '62947', 780.0],
  ['74532', '94016', 880.0],
];

const ZIPCODES: [string, string][] = [
  ['Rivermist', '83214'],
  ['Stonebrook', '74532'],
  ['Maplecrest', '56108'],
  ['Silverpine', '62947'],
  ['Shadowridge', '71354'],
  ['Sunset Valley', '83462'],
  ['Oakendale', '47329'],
  ['Willowbend', '52013'],
  ['Crescent Hollow', '69238'],
  ['Autumnville', '51479'],
  ['San Francisco', '94016'],
];

const le = (a: PyValue, b: PyValue): boolean => pyCompare(a, b, '<=');
const lt = (a: PyValue, b: PyValue): boolean => pyCompare(a, b, '<');

export class VehicleControlAPI extends ApiInstance {
  fuelLevel: PyValue = 0.0;
  batteryVoltage: PyValue = 12.6;
  engineState: PyValue = 'stopped';
  remainingUnlockedDoors: PyValue = 4n;
  doorStatus: PyValue = new PyDict();
  acTemperature: PyValue = 25.0;
  fanSpeed: PyValue = 50n;
  acMode: PyValue = 'auto';
  humidityLevel: PyValue = 50.0;
  headLightStatus: PyValue = 'off';
  parkingBrakeStatus: PyValue = 'released';
  private parkingBrakeForce: PyValue = 0.0;
  private slopeAngle: PyValue = 0.0;
  brakePedalStatus: PyValue = 'released';
  private brakePedalForce: PyValue = 0.0;
  distanceToNextVehicle: PyValue = 50.0;
  cruiseStatus: PyValue = 'inactive';
  destination: PyValue = 'None';
  frontLeftTirePressure: PyValue = 32.0;
  frontRightTirePressure: PyValue = 32.0;
  rearLeftTirePressure: PyValue = 30.0;
  rearRightTirePressure: PyValue = 30.0;
  longContext: PyValue = false;
  private random!: PyRandom;

  loadScenario(s: PyDict, longContext: boolean): void {
    this.random = new PyRandom(getOr(s, 'random_seed', () => 141053n));
    this.fuelLevel = getOr(s, 'fuelLevel', () => 0.0);
    this.batteryVoltage = getOr(s, 'batteryVoltage', () => 12.6);
    this.engineState = getOr(s, 'engineState', () => 'stopped');
    this.remainingUnlockedDoors = getOr(s, 'remainingUnlockedDoors', () => 4n);
    this.doorStatus = getOr(s, 'doorStatus', () => dict({ driver: 'unlocked', passenger: 'unlocked', rear_left: 'unlocked', rear_right: 'unlocked' }));
    let locked = 0n;
    for (const door of needDict(this.doorStatus, 'keys').keys()) if (pyEq(getitem(this.doorStatus, door), 'locked')) locked++;
    this.remainingUnlockedDoors = 4n - locked;
    this.acTemperature = getOr(s, 'acTemperature', () => 25.0);
    this.fanSpeed = getOr(s, 'fanSpeed', () => 50n);
    this.acMode = getOr(s, 'acMode', () => 'auto');
    this.humidityLevel = getOr(s, 'humidityLevel', () => 50.0);
    this.headLightStatus = getOr(s, 'headLightStatus', () => 'off');
    this.parkingBrakeStatus = getOr(s, 'parkingBrakeStatus', () => 'released');
    this.parkingBrakeForce = getOr(s, 'parkingBrakeForce', () => 0.0);
    this.slopeAngle = getOr(s, 'slopeAngle', () => 0.0);
    this.brakePedalStatus = getOr(s, 'brakePedalStatus', () => 'released');
    this.brakePedalForce = getOr(s, 'brakePedalForce', () => 0.0);
    this.distanceToNextVehicle = getOr(s, 'distanceToNextVehicle', () => 50.0);
    this.cruiseStatus = getOr(s, 'cruiseStatus', () => 'inactive');
    this.destination = getOr(s, 'destination', () => 'None');
    this.frontLeftTirePressure = getOr(s, 'frontLeftTirePressure', () => 32.0);
    this.frontRightTirePressure = getOr(s, 'frontRightTirePressure', () => 32.0);
    this.rearLeftTirePressure = getOr(s, 'rearLeftTirePressure', () => 30.0);
    this.rearRightTirePressure = getOr(s, 'rearRightTirePressure', () => 30.0);
    this.longContext = longContext;
  }

  stateAttrs(): [string, PyValue][] {
    return [
      ['fuelLevel', this.fuelLevel],
      ['batteryVoltage', this.batteryVoltage],
      ['engine_state', this.engineState],
      ['remainingUnlockedDoors', this.remainingUnlockedDoors],
      ['doorStatus', this.doorStatus],
      ['acTemperature', this.acTemperature],
      ['fanSpeed', this.fanSpeed],
      ['acMode', this.acMode],
      ['humidityLevel', this.humidityLevel],
      ['headLightStatus', this.headLightStatus],
      ['parkingBrakeStatus', this.parkingBrakeStatus],
      ['brakePedalStatus', this.brakePedalStatus],
      ['distanceToNextVehicle', this.distanceToNextVehicle],
      ['cruiseStatus', this.cruiseStatus],
      ['destination', this.destination],
      ['frontLeftTirePressure', this.frontLeftTirePressure],
      ['frontRightTirePressure', this.frontRightTirePressure],
      ['rearLeftTirePressure', this.rearLeftTirePressure],
      ['rearRightTirePressure', this.rearRightTirePressure],
      ['long_context', this.longContext],
    ];
  }

  startEngine(ignitionMode: PyValue): PyValue {
    if (pyEq(ignitionMode, 'STOP')) this.engineState = 'stopped';
    if (pyCompare(this.remainingUnlockedDoors, 0n, '>')) {
      const unlocked = needDict(this.doorStatus, 'items')
        .entries()
        .filter(([, status]) => pyEq(status, 'unlocked'))
        .map(([door]) => needStr(door, 'join'));
      return dict({ error: `All doors must be locked before starting the engine. Here are the unlocked doors: ${unlocked.join(', ')}` });
    }
    if (!pyEq(this.brakePedalStatus, 'pressed')) return dict({ error: 'Brake pedal needs to be pressed when starting the engine.' });
    if (!pyEq(this.brakePedalForce, 1000.0)) return dict({ error: 'Must press the brake fully before starting the engine.' });
    if (lt(this.fuelLevel, MIN_FUEL_LEVEL)) return dict({ error: 'Fuel tank is empty.' });
    if (pyEq(ignitionMode, 'START')) this.engineState = 'running';
    else return dict({ error: 'Invalid ignition mode.' });
    return dict({ engineState: this.engineState, fuelLevel: this.fuelLevel, batteryVoltage: this.batteryVoltage });
  }

  fillFuelTank(fuelAmount: PyValue): PyValue {
    if (lt(fuelAmount, 0n)) return dict({ error: 'Fuel amount cannot be negative.' });
    if (pyCompare(add(this.fuelLevel, fuelAmount), MAX_FUEL_LEVEL, '>')) return dict({ error: 'Cannot fill gas above the tank capacity.' });
    if (lt(add(this.fuelLevel, fuelAmount), MIN_FUEL_LEVEL)) return dict({ error: 'Fuel tank is empty. Min fuel level is 0 gallons.' });
    this.fuelLevel = add(this.fuelLevel, fuelAmount);
    return dict({ fuelLevel: this.fuelLevel });
  }

  lockDoors(unlock: PyValue, door: PyValue): PyValue {
    const doors = pyIter(door);
    if (truthy(unlock)) {
      for (const d of doors) {
        this.env.spend();
        if (pyEq(getitem(this.doorStatus, d), 'unlocked')) continue;
        setitem(this.doorStatus, d, 'unlocked');
        this.remainingUnlockedDoors = add(this.remainingUnlockedDoors, 1n);
      }
      return dict({ lockStatus: 'unlocked', remainingUnlockedDoors: this.remainingUnlockedDoors });
    }
    for (const d of doors) {
      this.env.spend();
      if (pyEq(getitem(this.doorStatus, d), 'locked')) continue;
      setitem(this.doorStatus, d, 'locked');
      this.remainingUnlockedDoors = sub(this.remainingUnlockedDoors, 1n);
    }
    return dict({ lockStatus: 'locked', remainingUnlockedDoors: this.remainingUnlockedDoors });
  }

  adjustClimateControl(temperature: PyValue, unit: PyValue, fanSpeed: PyValue, mode: PyValue): PyValue {
    if (!(le(0n, fanSpeed) && le(fanSpeed, 100n))) return dict({ error: 'Fan speed must be between 0 and 100.' });
    this.acTemperature = temperature;
    if (pyEq(unit, 'fahrenheit')) this.acTemperature = truediv(mul(sub(temperature, 32n), 5n), 9n);
    this.fanSpeed = fanSpeed;
    this.acMode = mode;
    return dict({ currentACTemperature: temperature, climateMode: mode, humidityLevel: this.humidityLevel });
  }

  getOutsideTemperatureFromGoogle(): PyValue {
    if (truthy(this.longContext)) {
      const weather = needDict(this.env.longContext('LONG_WEATHER_EXTENSION'), '__setitem__');
      weather.set('outsideTemperature', this.random.uniform(-10.0, 40.0));
      return weather;
    }
    return dict({ outsideTemperature: this.random.uniform(-10.0, 40.0) });
  }

  setHeadlights(mode: PyValue): PyValue {
    if (!pyContains(['on', 'off', 'auto'], mode)) return dict({ error: 'Invalid headlight mode.' });
    if (pyEq(mode, 'on')) {
      this.headLightStatus = 'on';
      return dict({ headlightStatus: 'on' });
    }
    this.headLightStatus = 'off';
    return dict({ headlightStatus: 'off' });
  }

  displayCarStatus(option: PyValue): PyValue {
    const status = new PyDict();
    if (truthy(this.longContext)) status.set('metadata', this.env.longContext('CAR_STATUS_METADATA_EXTENSION'));
    if (pyEq(option, 'fuel')) status.set('fuelLevel', this.fuelLevel);
    else if (pyEq(option, 'battery')) status.set('batteryVoltage', this.batteryVoltage);
    else if (pyEq(option, 'doors')) status.set('doorStatus', this.doorStatus);
    else if (pyEq(option, 'climate')) {
      status.set('currentACTemperature', this.acTemperature);
      status.set('fanSpeed', this.fanSpeed);
      status.set('climateMode', this.acMode);
      status.set('humidityLevel', this.humidityLevel);
    } else if (pyEq(option, 'headlights')) status.set('headlightStatus', this.headLightStatus);
    else if (pyEq(option, 'parkingBrake')) {
      status.set('parkingBrakeStatus', this.parkingBrakeStatus);
      status.set('parkingBrakeForce', this.parkingBrakeForce);
      status.set('slopeAngle', this.slopeAngle);
    } else if (pyEq(option, 'brakePedal')) {
      status.set('brakePedalStatus', this.brakePedalStatus);
      status.set('brakePedalForce', this.brakePedalForce);
    } else if (pyEq(option, 'engine')) status.set('engineState', this.engineState);
    else status.set('error', 'Invalid option');
    return status;
  }

  activateParkingBrake(mode: PyValue): PyValue {
    if (!pyContains(['engage', 'release'], mode)) return dict({ error: 'Invalid mode' });
    const engage = pyEq(mode, 'engage');
    this.parkingBrakeStatus = engage ? 'engaged' : 'released';
    this.parkingBrakeForce = engage ? 500.0 : 0.0;
    this.slopeAngle = 10.0;
    const out = new PyDict();
    if (truthy(this.longContext)) out.set('parkingBrakeInstruction', this.env.longContext('PARKING_BRAKE_INSTRUCTION'));
    out.set('parkingBrakeStatus', this.parkingBrakeStatus);
    out.set('_parkingBrakeForce', this.parkingBrakeForce);
    out.set('_slopeAngle', 10.0);
    return out;
  }

  pressBrakePedal(pedalPosition: PyValue): PyValue {
    if (!(le(0n, pedalPosition) && le(pedalPosition, 1n))) return dict({ error: 'Pedal position must be between 0 and 1.' });
    if (pyEq(pedalPosition, 0n)) {
      this.brakePedalStatus = 'released';
      this.brakePedalForce = 0.0;
      return dict({ brakePedalStatus: 'released', brakePedalForce: 0.0 });
    }
    const force = mul(pedalPosition, 1000n);
    this.brakePedalStatus = 'pressed';
    this.brakePedalForce = force;
    return dict({ brakePedalStatus: 'pressed', brakePedalForce: toFloat(force) });
  }

  releaseBrakePedal(): PyValue {
    this.brakePedalStatus = 'released';
    this.brakePedalForce = 0.0;
    return dict({ brakePedalStatus: 'released', brakePedalForce: 0.0 });
  }

  setCruiseControl(speedArg: PyValue, activate: PyValue, distanceArg: PyValue): PyValue {
    const distance = toFloat(distanceArg);
    const speed = toFloat(speedArg);
    if (pyEq(this.engineState, 'stopped')) return dict({ error: 'Start the engine before activating the cruise control.' });
    if (truthy(activate)) {
      this.distanceToNextVehicle = distance;
      if (speed < 0 || speed > 120 || !pyEq(mod(speed, 5n), 0n)) return dict({ error: 'Invalid speed' });
      this.cruiseStatus = 'active';
      return dict({ cruiseStatus: 'active', currentSpeed: speed, distanceToNextVehicle: distance });
    }
    this.cruiseStatus = 'inactive';
    this.distanceToNextVehicle = distance;
    return dict({ cruiseStatus: 'inactive', currentSpeed: speed, distanceToNextVehicle: distance });
  }

  getCurrentSpeed(): PyValue {
    return dict({ currentSpeed: this.random.uniform(0.0, 120.0) });
  }

  estimateDriveFeasibility(distance: PyValue): PyValue {
    return dict({ canDrive: !lt(mul(this.fuelLevel, MILE_PER_GALLON), distance) });
  }

  estimateDistance(cityA: PyValue, cityB: PyValue): PyValue {
    let out: PyDict | undefined;
    for (const [a, b, d] of DISTANCES) {
      if ((pyEq(cityA, a) && pyEq(cityB, b)) || (pyEq(cityA, b) && pyEq(cityB, a))) {
        out = dict({ distance: d });
        break;
      }
    }
    out ??= dict({ error: 'distance not found in database.' });
    if (truthy(this.longContext)) out.set('intermediaryCities', this.env.longContext('INTERMEDIARY_CITIES'));
    return out;
  }

  getZipcode(city: PyValue): PyValue {
    for (const [name, zip] of ZIPCODES) if (pyEq(city, name)) return dict({ zipcode: zip });
    return dict({ zipcode: '00000' });
  }

  setNavigation(destination: PyValue): PyValue {
    this.destination = destination;
    return dict({ status: add('Navigating to ', destination) });
  }

  checkTirePressure(): PyValue {
    const total = add(add(add(this.frontLeftTirePressure, this.frontRightTirePressure), this.rearLeftTirePressure), this.rearRightTirePressure);
    const avg = truediv(total, 4n);
    const healthy = le(30n, avg) && le(avg, 35n);
    return dict({
      frontLeftTirePressure: this.frontLeftTirePressure,
      frontRightTirePressure: this.frontRightTirePressure,
      rearLeftTirePressure: this.rearLeftTirePressure,
      rearRightTirePressure: this.rearRightTirePressure,
      healthy_tire_pressure: healthy,
      car_info: truthy(this.longContext) ? this.env.longContext('CAR_STATUS_METADATA_EXTENSION') : new PyDict(),
    });
  }
}

type V = VehicleControlAPI;
export const VehicleControlAPIClass: ApiClass<V> = {
  name: 'VehicleControlAPI',
  create: (env: BfclEnv) => new VehicleControlAPI(env),
  methods: {
    activateParkingBrake: method<V>(['mode'], (s, [a]) => s.activateParkingBrake(a!)),
    adjustClimateControl: method<V>(['temperature', ['unit', () => 'celsius'], ['fanSpeed', () => 50n], ['mode', () => 'auto']], (s, [a, b, c, d]) =>
      s.adjustClimateControl(a!, b!, c!, d!),
    ),
    check_tire_pressure: method<V>([], (s) => s.checkTirePressure()),
    displayCarStatus: method<V>(['option'], (s, [a]) => s.displayCarStatus(a!)),
    display_log: method<V>(['messages'], (_s, [a]) => dict({ log: a! })),
    estimate_distance: method<V>(['cityA', 'cityB'], (s, [a, b]) => s.estimateDistance(a!, b!)),
    estimate_drive_feasibility_by_mileage: method<V>(['distance'], (s, [a]) => s.estimateDriveFeasibility(a!)),
    fillFuelTank: method<V>(['fuelAmount'], (s, [a]) => s.fillFuelTank(a!)),
    find_nearest_tire_shop: method<V>([], () => dict({ shopLocation: '456 Oakwood Avenue, Rivermist, 83214' })),
    gallon_to_liter: method<V>(['gallon'], (_s, [a]) => dict({ liter: mul(a!, 3.78541) })),
    get_current_speed: method<V>([], (s) => s.getCurrentSpeed()),
    get_outside_temperature_from_google: method<V>([], (s) => s.getOutsideTemperatureFromGoogle()),
    get_outside_temperature_from_weather_com: method<V>([], () => dict({ error: 404n })),
    get_zipcode_based_on_city: method<V>(['city'], (s, [a]) => s.getZipcode(a!)),
    liter_to_gallon: method<V>(['liter'], (_s, [a]) => dict({ gallon: mul(a!, 0.264172) })),
    lockDoors: method<V>(['unlock', 'door'], (s, [a, b]) => s.lockDoors(a!, b!)),
    pressBrakePedal: method<V>(['pedalPosition'], (s, [a]) => s.pressBrakePedal(a!)),
    releaseBrakePedal: method<V>([], (s) => s.releaseBrakePedal()),
    setCruiseControl: method<V>(['speed', 'activate', 'distanceToNextVehicle'], (s, [a, b, c]) => s.setCruiseControl(a!, b!, c!)),
    setHeadlights: method<V>(['mode'], (s, [a]) => s.setHeadlights(a!)),
    set_navigation: method<V>(['destination'], (s, [a]) => s.setNavigation(a!)),
    startEngine: method<V>(['ignitionMode'], (s, [a]) => s.startEngine(a!)),
  },
};
