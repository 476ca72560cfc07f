#!/usr/bin/env node
// @ts-check
// Writes the project's own example data, deterministically (a seeded generator, no external data):
// arithmetic word problems, each with two worked solutions, right or wrong, in the ways models
// write them (GSM8K's "#### 42", \boxed{42}, "The answer is 42.", "A: 42", some with a <think>
// block first), labelled with whether the final answer is right.
//   examples/arithmetic/samples.jsonl   100 problems x 2 solutions (the README's first command)
//   examples/length-gated/samples.jsonl  25 problems x 2 solutions, with output_json {reasoning, answer}
// Run: node scripts/make-examples.mjs [--out DIR]   (DIR defaults to examples/; test/core/examples.test.ts
// checks that the committed files are exactly what this writes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** mulberry32: a small seeded PRNG, so the files are the same on every machine. @param {number} seed */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** @param {number} lo @param {number} hi an integer in [lo, hi] */
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  /** @template T @param {readonly T[]} xs @returns {T} */
  const pick = (xs) => /** @type {T} */ (xs[Math.floor(next() * xs.length)]);
  return { next, int, pick };
}
/** @typedef {ReturnType<typeof rng>} Rng */

/**
 * One worked solution. `slip` is applied to one intermediate result: the identity for a right
 * solution, an off-by-some mistake for a wrong one (later steps use the mistaken value, as a
 * model's would).
 * @typedef {{ question: string, answer: number, steps: (slip: (x: number) => number) => { lines: string[], final: number } }} Problem
 */

const NAMES = ['Maya', 'Tom', 'Priya', 'Lucas', 'Amara', 'Kenji', 'Sofia', 'Omar', 'Ines', 'Diego', 'Hana', 'Noah', 'Zara', 'Felix', 'Leila', 'Sam'];
const money = (/** @type {number} */ x) => `$${x}`;

/** @type {((r: Rng) => Problem)[]} */
const TEMPLATES = [
  (r) => {
    const n = r.pick(NAMES);
    const [lay, eat, give, price] = [r.int(12, 30), r.int(2, 5), r.int(1, 4), r.int(2, 6)];
    return {
      question: `${n}'s hens lay ${lay} eggs a day. ${n} eats ${eat} for breakfast and gives ${give} to a neighbour every day, and sells the rest at ${money(price)} per egg. How many dollars does ${n} make a day?`,
      answer: (lay - eat - give) * price,
      steps: (slip) => {
        const left = slip(lay - eat - give);
        return {
          lines: [
            `${n} uses ${eat} + ${give} = ${eat + give} eggs a day.`,
            `That leaves ${lay} - ${eat + give} = ${left} eggs to sell.`,
            `${left} eggs at ${money(price)} each is ${left} * ${price} = ${money(left * price)}.`,
          ],
          final: left * price,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const item = r.pick([
      ['notebooks', 'pens'],
      ['apples', 'pears'],
      ['stamps', 'envelopes'],
      ['tickets', 'programs'],
    ]);
    const [a, pa, b, pb] = [r.int(2, 9), r.int(2, 8), r.int(2, 9), r.int(1, 5)];
    const bill = Math.ceil((a * pa + b * pb + 1) / 10) * 10 + r.pick([0, 10, 20]);
    return {
      question: `${n} buys ${a} ${item[0]} at ${money(pa)} each and ${b} ${item[1]} at ${money(pb)} each, and pays with ${money(bill)}. How much change does ${n} get?`,
      answer: bill - a * pa - b * pb,
      steps: (slip) => {
        const first = slip(a * pa);
        const total = first + b * pb;
        return {
          lines: [
            `The ${item[0]} cost ${a} * ${pa} = ${money(first)}.`,
            `The ${item[1]} cost ${b} * ${pb} = ${money(b * pb)}.`,
            `Together that is ${money(first)} + ${money(b * pb)} = ${money(total)}.`,
            `The change is ${money(bill)} - ${money(total)} = ${money(bill - total)}.`,
          ],
          final: bill - total,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [s1, h1, s2, h2] = [r.int(4, 7) * 10, r.int(2, 4), r.int(3, 6) * 10, r.int(1, 3)];
    return {
      question: `${n} drives at ${s1} miles per hour for ${h1} hours, then at ${s2} miles per hour for ${h2} more hours. How many miles does ${n} drive in all?`,
      answer: s1 * h1 + s2 * h2,
      steps: (slip) => {
        const d1 = s1 * h1;
        const d2 = slip(s2 * h2);
        return {
          lines: [`First part: ${s1} * ${h1} = ${d1} miles.`, `Second part: ${s2} * ${h2} = ${d2} miles.`, `In all: ${d1} + ${d2} = ${d1 + d2} miles.`],
          final: d1 + d2,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [start, week, weeks, spend] = [r.int(10, 60), r.int(5, 25), r.int(3, 12), r.int(5, 40)];
    return {
      question: `${n} has ${money(start)} and saves ${money(week)} every week for ${weeks} weeks, then spends ${money(spend)} on a present. How much money does ${n} have left?`,
      answer: start + week * weeks - spend,
      steps: (slip) => {
        const saved = slip(week * weeks);
        return {
          lines: [
            `In ${weeks} weeks ${n} saves ${week} * ${weeks} = ${money(saved)}.`,
            `With the ${money(start)} at the start that is ${money(start + saved)}.`,
            `After the present: ${start + saved} - ${spend} = ${money(start + saved - spend)}.`,
          ],
          final: start + saved - spend,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [trays, per, friends] = [r.int(2, 6), r.int(6, 12), r.pick([2, 3, 4, 6])];
    const extra = ((trays * per) % friends) + friends * r.int(0, 2);
    const total = trays * per - extra;
    return {
      question: `${n} bakes ${trays} trays of ${per} cookies, eats ${extra} of them, and shares the rest equally among ${friends} friends. How many cookies does each friend get?`,
      answer: total / friends,
      steps: (slip) => {
        const left = slip(trays * per - extra);
        const each = Math.floor(left / friends);
        return {
          lines: [
            `${trays} trays of ${per} is ${trays * per} cookies.`,
            `After eating ${extra}, ${left} are left.`,
            `${left} / ${friends} = ${each} cookies each.`,
          ],
          final: each,
        };
      },
    };
  },
  (r) => {
    const [a, b] = [r.pick(NAMES), r.pick(NAMES.slice(8))];
    const [bAge, diff, years] = [r.int(6, 30), r.int(2, 12), r.int(2, 10)];
    return {
      question: `${a} is ${diff} years older than ${b}, who is ${bAge}. What will the sum of their ages be in ${years} years?`,
      answer: bAge + diff + years + bAge + years,
      steps: (slip) => {
        const aAge = slip(bAge + diff);
        return {
          lines: [
            `${a} is ${bAge} + ${diff} = ${aAge} now.`,
            `In ${years} years: ${aAge + years} and ${bAge + years}.`,
            `Sum: ${aAge + years} + ${bAge + years} = ${aAge + bAge + 2 * years}.`,
          ],
          final: aAge + bAge + 2 * years,
        };
      },
    };
  },
  (r) => {
    const [l, w, cost] = [r.int(5, 30), r.int(3, 20), r.int(2, 9)];
    return {
      question: `A garden is ${l} metres long and ${w} metres wide. Fencing costs ${money(cost)} per metre. How many dollars does it cost to fence the whole garden?`,
      answer: 2 * (l + w) * cost,
      steps: (slip) => {
        const per = slip(2 * (l + w));
        return {
          lines: [`The perimeter is 2 * (${l} + ${w}) = ${per} metres.`, `The fence costs ${per} * ${cost} = ${money(per * cost)}.`],
          final: per * cost,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [perDay, days] = [r.int(10, 40), r.int(3, 9)];
    const pages = perDay * days + r.int(20, 150);
    return {
      question: `A book has ${pages} pages. ${n} reads ${perDay} pages a day for ${days} days. How many pages are left to read?`,
      answer: pages - perDay * days,
      steps: (slip) => {
        const read = slip(perDay * days);
        return { lines: [`${n} reads ${perDay} * ${days} = ${read} pages.`, `${pages} - ${read} = ${pages - read} pages are left.`], final: pages - read };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [price, off, k] = [r.int(2, 12) * 10, r.pick([10, 20, 25, 50]), r.int(2, 5)];
    return {
      question: `A jacket costs ${money(price)}. In a sale everything is ${off}% off. ${n} buys ${k} jackets. How much does ${n} pay?`,
      answer: (k * price * (100 - off)) / 100,
      steps: (slip) => {
        const each = slip((price * (100 - off)) / 100);
        return {
          lines: [
            `${off}% of ${money(price)} is ${money((price * off) / 100)}, so one jacket costs ${money(each)}.`,
            `${k} jackets cost ${k} * ${each} = ${money(k * each)}.`,
          ],
          final: k * each,
        };
      },
    };
  },
  (r) => {
    const n = r.pick(NAMES);
    const [hours, rate, days, bonus] = [r.int(3, 8), r.int(9, 25), r.int(3, 6), r.int(1, 6) * 10];
    return {
      question: `${n} works ${hours} hours a day for ${days} days at ${money(rate)} an hour, and gets a ${money(bonus)} bonus. How much does ${n} earn?`,
      answer: hours * rate * days + bonus,
      steps: (slip) => {
        const perDay = slip(hours * rate);
        return {
          lines: [
            `Each day: ${hours} * ${rate} = ${money(perDay)}.`,
            `${days} days: ${perDay} * ${days} = ${money(perDay * days)}.`,
            `With the bonus: ${perDay * days} + ${bonus} = ${money(perDay * days + bonus)}.`,
          ],
          final: perDay * days + bonus,
        };
      },
    };
  },
];

/** The ways a final answer is written. @type {((x: number) => string)[]} */
const FINALS = [
  (x) => `#### ${x}`,
  (x) => `The answer is ${x}.`,
  (x) => `\\boxed{${x}}`,
  (x) => `Answer: ${x}`,
  (x) => `A: ${x}`,
  (x) => `So the final answer is $\\boxed{${x}}$.`,
];

/**
 * The example sets, as file name -> JSONL text.
 * @returns {Record<string, string>}
 */
export function buildExamples() {
  const r = rng(20260512);
  /** @param {number} count @param {string} prefix */
  const problems = (count, prefix) => {
    /** @type {{ id: string, problem: Problem, right: boolean, lines: string[], final: number }[]} */
    const out = [];
    for (let i = 0; i < count; i++) {
      const problem = /** @type {(r: Rng) => Problem} */ (TEMPLATES[i % TEMPLATES.length])(r);
      const good = problem.steps((x) => x);
      if (good.final !== problem.answer) throw new Error(`template ${i % TEMPLATES.length}: its worked solution gives ${good.final}, not ${problem.answer}`);
      // two solutions per problem, each right about two times in three (as a fair model's samples are)
      for (const k of [1, 2]) {
        const right = r.next() < 0.65;
        let bad = good;
        for (let tries = 0; !right && bad.final === problem.answer; tries++) {
          if (tries > 50) throw new Error(`template ${i % TEMPLATES.length}: no wrong solution found`);
          const delta = r.pick([-10, -3, -2, -1, 1, 2, 5, 10]);
          bad = problem.steps((x) => x + delta);
        }
        out.push({ id: `${prefix}-${i}-${k}`, problem, right, ...(right ? good : bad) });
      }
    }
    return out;
  };

  const main = problems(100, 'arith').map(({ id, problem, right, lines, final }) => {
    const answerLine = r.pick(FINALS)(final);
    let text = `${lines.join('\n')}\n${answerLine}`;
    // a reasoning block first (about one in five), with a draft number in it the grader must not read
    if (r.next() < 0.2) text = `<think>\nLet me work it out. First guess: ${final + r.int(1, 9)}. Check each step again.\n</think>\n${text}`;
    return { id, item: { question: problem.question, answer: String(problem.answer), is_correct: right }, sample: { output_text: text } };
  });
  const gated = problems(25, 'gated').map(({ id, problem, right, lines, final }) => {
    // a terser or a wordier write-up, so brevity varies among the right answers
    const reasoning =
      r.next() < 0.5 ? lines.join(' ') : `Let us solve this step by step.\n${lines.join('\n')}\nChecking the arithmetic once more, each step holds.`;
    return {
      id,
      item: { question: problem.question, answer: String(problem.answer) },
      sample: { output_text: `${reasoning}\nA: ${final}`, output_json: { reasoning, answer: String(final) }, is_correct: right },
    };
  });
  /** @param {object[]} rows */
  const jsonl = (rows) => rows.map((o) => JSON.stringify(o)).join('\n') + '\n';
  return { 'arithmetic/samples.jsonl': jsonl(main), 'length-gated/samples.jsonl': jsonl(gated) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? String(process.argv[i + 1]) : fileURLToPath(new URL('../examples/', import.meta.url));
  for (const [file, text] of Object.entries(buildExamples())) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    writeFileSync(join(out, file), text);
    console.log(`wrote ${join(out, file)} (${text.split('\n').length - 1} samples)`);
  }
}
