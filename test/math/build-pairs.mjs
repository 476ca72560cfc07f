// Builds fixtures/math500-pairs.json: equivalent rewritings and near-miss variants of the MATH-500
// reference answers, each labelled by the rule that made it (the rules are sound by construction
// and were checked by hand), plus hand-written pairs for every answer category.
// Run: node test/math/build-pairs.mjs   (reads ../shared/data/math500/test.jsonl)
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const dataPath = fileURLToPath(new URL('../../../shared/data/math500/test.jsonl', import.meta.url));
const outPath = fileURLToPath(new URL('./fixtures/math500-pairs.json', import.meta.url));
const rows = fs
  .readFileSync(dataPath, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

const pairs = [];
const add = (category, reference, output, equivalent, source) => pairs.push({ category, reference, output, equivalent, source });

const wrap = [
  (a) => `The final answer is $\\boxed{${a}}$.`,
  (a) => `So the answer is $${a}$.`,
  (a) => `Therefore, we get \\[\\boxed{${a}}\\]`,
  (a) => `**Answer:** ${a}`,
  (a) => a,
];
const gcd = (a, b) => (b ? gcd(b, a % b) : Math.abs(a));
const withCommas = (n) => n.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

let iInt = 0;
let iFrac = 0;
rows.forEach((r, idx) => {
  const ans = r.answer.split('The answer is: ').pop().trim();
  const src = `math500#${idx}`;
  let m;
  if (/^-?\d+$/.test(ans)) {
    const n = BigInt(ans);
    const k = iInt++;
    const eqForms = [
      `${ans}.0`,
      `\\text{${ans}}`,
      `**${ans}**`,
      `\\frac{${2n * n}}{2}`,
      n >= 1000n ? withCommas(ans) : `${ans}`,
      `x = ${ans}`,
      n >= 1000n ? withCommas(ans).replace(/,/g, '{,}') : `+${ans}`,
      `${ans} \\text{ units}`,
    ];
    add(n >= 1000n ? 'thousands' : 'integer', ans, wrap[k % wrap.length](eqForms[k % eqForms.length]), true, src);
    const neq = [`${n + 1n}`, `${n - 1n}`, `${-n}`, `${n * 10n}`, `${ans}.5`, `\\frac{${n}}{2}`, n < 0n ? `(${ans})^2` : `${ans}^2`, `\\sqrt{${ans}}`];
    let bad = neq[k % neq.length];
    if (
      (bad === `${-n}` && n === 0n) ||
      (bad === `${ans}^2` && (n === 0n || n === 1n)) ||
      (bad === `\\sqrt{${ans}}` && (n === 0n || n === 1n)) ||
      (bad === `\\frac{${n}}{2}` && n === 0n) ||
      (bad === `${n * 10n}` && n === 0n)
    )
      bad = `${n + 2n}`;
    add('integer_near_miss', ans, wrap[(k + 2) % wrap.length](bad), false, src);
  } else if ((m = /^(-?)\\[dt]?frac\s*\{?(\d+)\}?\s*\{?(\d+)\}?$/.exec(ans))) {
    const [, sg, a, b] = m;
    const k = iFrac++;
    const p = Number(a);
    const q = Number(b);
    const eq = [
      `${sg}${a}/${b}`,
      `${sg}\\dfrac{${a}}{${b}}`,
      `${sg}\\frac{${2 * p}}{${2 * q}}`,
      `${sg}\\tfrac{${a}}{${b}}`,
      `${sg}(${a})/(${b})`,
      `${sg}\\frac{${a}}{${b}}`,
    ];
    add('fraction', ans, wrap[k % wrap.length](eq[k % eq.length]), true, src);
    // terminating decimal when the denominator is 2^x 5^y
    let d = q / gcd(p, q);
    while (d % 2 === 0) d /= 2;
    while (d % 5 === 0) d /= 5;
    if (d === 1) add('decimal', ans, `${sg}${(p / q).toString()}`, true, src);
    const neq = [
      `${sg}\\frac{${b}}{${a}}`,
      `${sg}\\frac{${p + 1}}{${b}}`,
      `${sg}\\frac{${a}}{${q + 1}}`,
      sg ? `\\frac{${a}}{${b}}` : `-\\frac{${a}}{${b}}`,
      `${sg}${(p / q).toFixed(2)}`,
    ];
    let bad = neq[k % neq.length];
    if (p === q || (bad === `${sg}${(p / q).toFixed(2)}` && d === 1 && Number((p / q).toFixed(2)) === p / q)) bad = `${sg}\\frac{${p + 1}}{${b}}`;
    add('fraction_near_miss', ans, wrap[(k + 1) % wrap.length](bad), false, src);
  }
});

// Hand-written rewrites of the other MATH-500 answers: [reference, equivalent forms, near misses, category]
const hand = [
  [
    '\\left( 3, \\frac{\\pi}{2} \\right)',
    ['(3,\\frac{\\pi}{2})', '(3, \\pi/2)', '\\left(3,\\dfrac{\\pi}{2}\\right)'],
    ['(3, \\pi)', '(\\frac{\\pi}{2}, 3)', '(3, \\frac{\\pi}{3})'],
    'tuple',
  ],
  ['p - q', ['-q + p', 'p+(-q)'], ['q - p', 'p + q'], 'expression'],
  ['\\text{Evelyn}', ['Evelyn', 'evelyn', '\\textbf{Evelyn}'], ['Ivan', '\\text{Bob}'], 'text'],
  ['90^\\circ', ['90', '90°', '90 \\text{ degrees}', '\\frac{\\pi}{2}'], ['91^\\circ', '180^\\circ', '\\frac{\\pi}{3}'], 'degrees'],
  ['3\\sqrt{13}', ['\\sqrt{117}', '3 \\cdot \\sqrt{13}', '3*sqrt(13)', '\\sqrt{13} \\times 3'], ['\\sqrt{39}', '3\\sqrt{12}', '13\\sqrt{3}', '39'], 'sqrt'],
  ['\\sqrt{51}', ['\\sqrt{51}', '51^{1/2}', '\\sqrt[2]{51}'], ['\\sqrt{52}', '51', '\\sqrt[3]{51}'], 'sqrt'],
  ['6 - 5i', ['-5i + 6', '6-5\\cdot i', '6 + (-5)i'], ['6 + 5i', '5 - 6i', '6 - 5'], 'complex'],
  ['\\pi', ['\\pi', 'π', '\\frac{2\\pi}{2}'], ['3.14', '2\\pi', '\\pi^2'], 'pi'],
  ['6+9i', ['9i+6', '3(2+3i)'], ['6-9i', '9+6i'], 'complex'],
  ['x=5', ['5', 'x = 5', '5 = x'], ['x=-5', '6', 'x = 4'], 'equation'],
  ['1,-2', ['-2, 1', '1 \\text{ and } -2', 'x = 1, x = -2', '\\{-2, 1\\}'], ['1, 2', '1', '-1, 2', '1, -2, 3'], 'list'],
  ['-2 + 7i', ['7i - 2', '-2+7 i'], ['2 - 7i', '-2 - 7i'], 'complex'],
  ['52_8', ['52_{8}', '52', '\\boxed{52_8}'], ['42', '53_8', '25_8'], 'base'],
  ['11\\sqrt2', ['11\\sqrt{2}', '\\sqrt{242}', '11 \\cdot 2^{1/2}'], ['11\\sqrt3', '22', '\\sqrt{22}'], 'sqrt'],
  ['3, 5, 7', ['7, 5, 3', '3,5,7', '\\{3, 5, 7\\}'], ['3, 5', '3, 5, 9', '3, 5, 7, 9'], 'list'],
  ['70 \\sqrt{2}', ['70\\sqrt{2}', '\\sqrt{9800}'], ['70', '70\\sqrt{3}', '35\\sqrt{2}'], 'sqrt'],
  [
    'x^5 - x^4 + x^3 - x^2 + x - 1',
    ['(x-1)(x^4+x^2+1)', '-1 + x - x^2 + x^3 - x^4 + x^5'],
    ['x^5 + x^4 + x^3 + x^2 + x + 1', 'x^5 - x^4 + x^3 - x^2 + x + 1', '(x+1)(x^4+x^2+1)'],
    'polynomial',
  ],
  ['-\\frac{\\pi}{6}', ['-\\pi/6', '\\frac{-\\pi}{6}', '-30^\\circ'], ['\\frac{\\pi}{6}', '-\\frac{\\pi}{3}', '-\\frac{5\\pi}{6}'], 'pi'],
  ['0.15', ['\\frac{3}{20}', '15\\%', '.15'], ['0.16', '1.5', '0.015'], 'decimal'],
  ['(6,31,-1)', ['\\left(6, 31, -1\\right)', '(6, 31, -1)'], ['(6,-1,31)', '(6,31,1)', '(6,31)'], 'tuple'],
  ['x^3+3x-6', ['3x + x^3 - 6', 'x(x^2+3) - 6'], ['x^3+3x+6', 'x^3-3x-6', 'x^3+3x'], 'polynomial'],
  ['40_9', ['40_{9}', '40'], ['36', '41_9'], 'base'],
  [
    '\\frac{3\\sqrt{3}}{4}',
    ['\\frac{3}{4}\\sqrt{3}', '0.75\\sqrt{3}', '\\frac{\\sqrt{27}}{4}'],
    ['\\frac{3\\sqrt{2}}{4}', '\\frac{\\sqrt{3}}{4}', '\\frac{3}{4}'],
    'sqrt',
  ],
  ['\\cot x', ['\\frac{\\cos x}{\\sin x}', '\\frac{1}{\\tan x}', '\\cot(x)'], ['\\tan x', '\\cos x', '-\\cot x'], 'trig'],
  ['(-2,1)', ['\\left(-2, 1\\right)', '(-2, 1)'], ['(1,-2)', '(-2,-1)', '(2, 1)'], 'tuple'],
  ['\\sqrt{5}', ['5^{1/2}', '\\sqrt5'], ['5', '\\sqrt{6}', '\\sqrt[3]{5}'], 'sqrt'],
  [
    '1 \\pm \\sqrt{19}',
    ['1+\\sqrt{19}, 1-\\sqrt{19}', '1 - \\sqrt{19}, 1 + \\sqrt{19}', '\\{1\\pm\\sqrt{19}\\}'],
    ['1 + \\sqrt{19}', '1 \\pm \\sqrt{17}', '-1 \\pm \\sqrt{19}'],
    'pm',
  ],
  ['\\text{east}', ['east', 'East', '\\text{East}'], ['west', '\\text{north}'], 'text'],
  ['2k+2', ['2(k+1)', '2 + 2k', 'k \\cdot 2 + 2'], ['2k+1', '2k', 'k+2'], 'expression'],
  [
    '\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}',
    [
      '\\begin{pmatrix} -\\frac13 \\\\ \\frac23 \\\\ \\frac53 \\end{pmatrix}',
      '\\left(-\\frac{1}{3}, \\frac{2}{3}, \\frac{5}{3}\\right)',
      '\\begin{bmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{bmatrix}',
    ],
    [
      '\\begin{pmatrix} 1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}',
      '\\begin{pmatrix} -1/3 \\\\ 5/3 \\\\ 2/3 \\end{pmatrix}',
      '\\begin{pmatrix} -1/3 \\\\ 2/3 \\end{pmatrix}',
    ],
    'vector',
  ],
  ['145^\\circ', ['145', '145°', '145 \\text{ degrees}'], ['135^\\circ', '35^\\circ', '145\\pi'], 'degrees'],
  ['(a+5)(b+2)', ['(b+2)(a+5)', 'ab + 2a + 5b + 10'], ['(a+2)(b+5)', '(a-5)(b+2)', 'ab + 10'], 'polynomial'],
  ['(3,4]', ['\\left(3, 4\\right]', '3 < x \\le 4'], ['(3,4)', '[3,4]', '[3,4)', '(3, 5]'], 'interval'],
  ['\\frac43', ['4/3', '\\frac{4}{3}', '1\\frac{1}{3}'], ['\\frac34', '1.33', '\\frac{4}{3}\\pi'], 'fraction'],
  ['120^\\circ', ['120', '\\frac{2\\pi}{3}'], ['60^\\circ', '\\frac{\\pi}{3}', '240^\\circ'], 'degrees'],
  ['\\text{even}', ['even', 'Even', '\\text{Even}'], ['odd', '\\text{neither}'], 'text'],
  ['1+274i', ['274i + 1', '1 + 274 i'], ['1 - 274i', '274 + i', '1+27i'], 'complex'],
  ['4210_{5}', ['4210_5', '4210'], ['4201_5', '560', '4210_6'], 'base'],
  ['204_5', ['204_{5}', '204'], ['54', '205_5'], 'base'],
  ['3 \\sqrt{5}', ['\\sqrt{45}', '3\\sqrt5'], ['\\sqrt{15}', '5\\sqrt{3}', '3'], 'sqrt'],
  ['(15,-29)', ['\\left(15, -29\\right)'], ['(-29,15)', '(15, 29)', '(15,-28)'], 'tuple'],
  ['\\frac{\\sqrt{3}}{3}', ['\\frac{1}{\\sqrt{3}}', '\\frac{\\sqrt3}3', '3^{-1/2}'], ['\\sqrt{3}', '\\frac{\\sqrt{2}}{3}', '\\frac{1}{3}'], 'sqrt'],
  ['2\\sqrt{113}', ['\\sqrt{452}'], ['\\sqrt{226}', '2\\sqrt{112}', '226'], 'sqrt'],
  ['30^\\circ', ['30', '\\frac{\\pi}{6}', '30°'], ['60^\\circ', '\\frac{\\pi}{3}', '3^\\circ'], 'degrees'],
  ['\\frac65', ['6/5', '1.2', '1\\frac{1}{5}', '120\\%'], ['\\frac56', '1.25', '1\\frac{1}{6}'], 'fraction'],
  ['3.21', ['3.210', '\\frac{321}{100}'], ['3.2', '3.22', '32.1'], 'decimal'],
  ['\\dfrac{17}{50}', ['0.34', '\\frac{17}{50}', '34\\%'], ['0.35', '\\frac{17}{5}', '\\frac{50}{17}'], 'fraction'],
  ['-\\frac{35}{9}', ['-35/9', '\\frac{-35}{9}', '-3\\frac{8}{9}'], ['\\frac{35}{9}', '-\\frac{35}{8}', '-3.89'], 'fraction'],
  ['-\\sqrt{3}', ['-3^{1/2}', '-\\sqrt3'], ['\\sqrt{3}', '-\\sqrt{2}', '-3'], 'sqrt'],
  ['\\frac{270}7\\text{ degrees}', ['\\frac{270}{7}', '\\frac{270}{7}^\\circ', '270/7'], ['\\frac{270}{8}', '\\frac{7}{270}', '38'], 'degrees'],
  ['.0000672', ['6.72 \\times 10^{-5}', '6.72e-5', '0.0000672', '\\frac{672}{10^7}'], ['6.72 \\times 10^{-4}', '0.000672', '6.7e-5'], 'scientific'],
  [
    '5x - 7y + 11z + 4 = 0',
    ['-5x + 7y - 11z - 4 = 0', '10x - 14y + 22z + 8 = 0', '5x - 7y + 11z = -4'],
    ['5x - 7y + 11z - 4 = 0', '5x + 7y + 11z + 4 = 0', '5x - 7y + 11z + 4'],
    'equation',
  ],
  ['(2,\\infty)', ['\\left(2, \\infty\\right)', 'x > 2', '(2, +\\infty)'], ['[2,\\infty)', '(-\\infty, 2)', '(3,\\infty)', 'x \\ge 2'], 'interval'],
  ['10,\\!080', ['10080', '10,080', '10\\,080', '10 080'], ['10,800', '1008', '10081'], 'thousands'],
  [
    '\\begin{pmatrix} -2 \\\\ -14 \\\\ -7 \\end{pmatrix}',
    ['\\begin{bmatrix} -2 \\\\ -14 \\\\ -7 \\end{bmatrix}', '(-2,-14,-7)'],
    ['\\begin{pmatrix} 2 \\\\ 14 \\\\ 7 \\end{pmatrix}', '\\begin{pmatrix} -2 \\\\ -7 \\\\ -14 \\end{pmatrix}'],
    'vector',
  ],
  [
    '\\left( \\frac{3}{2}, -13 \\right)',
    ['(3/2, -13)', '(1.5, -13)', '\\left(1\\frac{1}{2}, -13\\right)'],
    ['(-13, \\frac{3}{2})', '(\\frac{2}{3}, -13)', '(\\frac{3}{2}, 13)'],
    'tuple',
  ],
  ['11,\\! 111,\\! 111,\\! 100', ['11111111100', '11,111,111,100', '1.11111111 \\times 10^{10}'], ['1111111100', '11,111,111,000', '11111111101'], 'thousands'],
  ['(-1,6)', ['\\left(-1, 6\\right)'], ['(6,-1)', '(1,6)', '[-1,6]'], 'tuple'],
  ['\\text{(C)}', ['C', '(C)', 'The answer is (C).', '\\boxed{C}'], ['B', '(D)', 'The answer is (A).'], 'choice'],
  ['288 \\pi', ['288\\pi', '\\pi \\cdot 288', '288π'], ['288', '144\\pi', '288\\pi^2'], 'pi'],
  ['\\frac 59', ['5/9', '\\frac{5}{9}', '0.5\\overline{5}'], ['0.56', '\\frac{9}{5}', '\\frac{5}{8}'], 'fraction'],
  ['\\$32,\\!348', ['32348', '\\$32,348', '32,348 \\text{ dollars}', '$32{,}348'], ['32,384', '3234.8', '32349'], 'units'],
  ['-13x+3', ['3 - 13x', '-(13x - 3)'], ['13x+3', '-13x-3', '-13x'], 'polynomial'],
  [
    '\\begin{pmatrix} -1 & 0 \\\\ 0 & -1 \\end{pmatrix}',
    ['\\begin{bmatrix} -1 & 0 \\\\ 0 & -1 \\end{bmatrix}', '\\left[\\begin{matrix} -1 & 0 \\\\ 0 & -1 \\end{matrix}\\right]'],
    [
      '\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}',
      '\\begin{pmatrix} -1 & 0 \\\\ 0 & 1 \\end{pmatrix}',
      '\\begin{pmatrix} 0 & -1 \\\\ -1 & 0 \\end{pmatrix}',
    ],
    'matrix',
  ],
  ['\\text{(E)}', ['E', '(E)', 'The correct option is (E).'], ['(D)', 'C'], 'choice'],
  ['864 \\mbox{ inches}^2', ['864', '864 \\text{ square inches}', '864 \\text{ in}^2'], ['846', '864^2', '432'], 'units'],
  ['1\\frac{4}{5}', ['\\frac{9}{5}', '1.8', '9/5'], ['\\frac{4}{5}', '\\frac{14}{5}', '1.45'], 'mixed'],
  ['18+2\\pi', ['2\\pi + 18', '2(9+\\pi)'], ['18+\\pi', '18-2\\pi', '20\\pi'], 'pi'],
  [
    '3 \\pm 2 \\sqrt{2}',
    ['3+2\\sqrt2, 3-2\\sqrt2', '3 - 2\\sqrt{2}, 3 + 2\\sqrt{2}', '3 \\pm \\sqrt{8}'],
    ['3 + 2\\sqrt{2}', '3 \\pm 2\\sqrt{3}', '2 \\pm 3\\sqrt{2}'],
    'pm',
  ],
  [
    '\\left(\\frac{3}{5},\\frac{8}{3}\\right]',
    ['(\\frac35, \\frac83]', '(0.6, \\frac{8}{3}]', '\\frac{3}{5} < x \\le \\frac{8}{3}'],
    ['[\\frac35, \\frac83]', '(\\frac35, \\frac83)', '(\\frac{3}{5}, \\frac{3}{8}]'],
    'interval',
  ],
  ['\\text{(B)}', ['B', '(B)', '\\textbf{(B)}'], ['(C)', 'A'], 'choice'],
  ['\\begin{pmatrix} -18 \\\\ -49 \\\\ 96 \\end{pmatrix}', ['(-18, -49, 96)'], ['(-18, 49, 96)', '(-49, -18, 96)'], 'vector'],
  ['5.4 \\text{ cents}', ['5.4', '5.4 cents', '\\frac{27}{5}'], ['5.5', '54', '0.054'], 'units'],
  ['(-\\infty, 0]', ['\\left(-\\infty, 0\\right]', 'x \\le 0'], ['(-\\infty, 0)', '[0, \\infty)', 'x < 0'], 'interval'],
  ['1+2\\sqrt{3}', ['2\\sqrt{3}+1', '1+\\sqrt{12}'], ['1+3\\sqrt{2}', '1-2\\sqrt{3}', '2+\\sqrt{3}'], 'sqrt'],
  ['12\\pi', ['12π', '\\pi \\times 12'], ['12', '6\\pi', '12\\pi^2'], 'pi'],
  ['(2,4)', ['\\left(2, 4\\right)'], ['(4,2)', '(2,5)', '[2,4]'], 'tuple'],
  [
    '\\frac{11+9a}{20}',
    ['\\frac{9a+11}{20}', '\\frac{11}{20} + \\frac{9a}{20}', '0.55 + 0.45a'],
    ['\\frac{11+9a}{2}', '\\frac{11-9a}{20}', '\\frac{9+11a}{20}'],
    'expression',
  ],
  ['4343_6', ['4343_{6}', '4343'], ['4334_6', '999'], 'base'],
  ['2k', ['k+k', '2 \\cdot k'], ['k', '2k+1', 'k^2'], 'expression'],
  ['55^\\circ', ['55', '55°'], ['35^\\circ', '125^\\circ'], 'degrees'],
  ['58,500', ['58500', '58\\,500', '58{,}500'], ['58,000', '5850', '85,500'], 'thousands'],
  ['6r^2-4r-24', ['2(3r^2-2r-12)', '-24 - 4r + 6r^2'], ['6r^2+4r-24', '6r^2-4r+24', '6r^2-4r'], 'polynomial'],
  ['11 \\sqrt{5} + 11', ['11(\\sqrt{5}+1)', '11 + 11\\sqrt5'], ['11\\sqrt{5} - 11', '22\\sqrt{5}', '11\\sqrt{6}+11'], 'sqrt'],
  [
    '(-\\sqrt{3}, \\sqrt{3})',
    ['\\left(-\\sqrt3, \\sqrt3\\right)', '-\\sqrt{3} < x < \\sqrt{3}'],
    ['[-\\sqrt{3}, \\sqrt{3}]', '(-3, 3)', '(-\\sqrt{2}, \\sqrt{3})'],
    'interval',
  ],
  ['\\text{ellipse}', ['ellipse', 'Ellipse', '\\text{Ellipse}'], ['hyperbola', '\\text{circle}'], 'text'],
  ['16 \\sqrt{3}', ['\\sqrt{768}', '16\\sqrt3'], ['16', '48', '16\\sqrt{2}'], 'sqrt'],
  ['(1,-16,-4,43)', ['\\left(1, -16, -4, 43\\right)'], ['(1,-16,4,43)', '(1,-16,-4)', '(-16,1,-4,43)'], 'tuple'],
  ['1+2i', ['2i+1', '1 + 2 \\cdot i'], ['1-2i', '2+i', '1+2'], 'complex'],
  ['(8,-2)', ['\\left( 8, -2 \\right)'], ['(-2,8)', '(8,2)'], 'tuple'],
  [
    '(0,9) \\cup (9,36)',
    ['(9,36) \\cup (0,9)', '\\left(0,9\\right) \\cup \\left(9,36\\right)'],
    ['(0,36)', '[0,9) \\cup (9,36)', '(0,9) \\cup (9,36]'],
    'interval',
  ],
  ['\\frac{20000}{\\pi}', ['20000/\\pi', '\\frac{20000}{π}', '20000\\pi^{-1}'], ['20000\\pi', '\\frac{2000}{\\pi}', '6366'], 'pi'],
  ['x \\in [-2,7]', ['[-2,7]', '-2 \\le x \\le 7', '\\left[-2, 7\\right]'], ['(-2,7)', '[-2,7)', '[-7,2]'], 'interval'],
  ['15x - 80', ['-80 + 15x', '5(3x-16)'], ['15x + 80', '15x - 8', '80 - 15x'], 'polynomial'],
  [
    '\\frac{\\sqrt{21}}{5}',
    ['\\sqrt{21}/5', '\\sqrt{\\frac{21}{25}}', '\\frac{1}{5}\\sqrt{21}'],
    ['\\frac{\\sqrt{21}}{25}', '\\frac{21}{5}', '\\frac{\\sqrt{20}}{5}'],
    'sqrt',
  ],
  ['\\text{Navin}', ['Navin', 'NAVIN'], ['Luka', '\\text{Ian}'], 'text'],
  ['326.5', ['326.50', '\\frac{653}{2}', '326\\frac{1}{2}'], ['326', '327', '325.6'], 'decimal'],
  ['1 - 12i', ['-12i + 1'], ['1 + 12i', '12 - i'], 'complex'],
  [
    '\\begin{pmatrix} 1/5 \\\\ -18/5 \\end{pmatrix}',
    ['\\begin{pmatrix} 0.2 \\\\ -3.6 \\end{pmatrix}', '(\\frac15, -\\frac{18}{5})'],
    ['\\begin{pmatrix} 1/5 \\\\ 18/5 \\end{pmatrix}', '\\begin{pmatrix} -18/5 \\\\ 1/5 \\end{pmatrix}'],
    'vector',
  ],
  ['5r^5', ['5 r^{5}', 'r^5 \\cdot 5'], ['5r^4', '25r^5', '5^5 r'], 'expression'],
  [
    '\\{1\\pm\\sqrt{5},-2\\}',
    ['\\{-2, 1+\\sqrt5, 1-\\sqrt5\\}', '-2, 1 \\pm \\sqrt{5}', '1-\\sqrt5, -2, 1+\\sqrt5'],
    ['\\{1+\\sqrt5, -2\\}', '\\{1\\pm\\sqrt{5}, 2\\}', '\\{-1 \\pm \\sqrt{5}, -2\\}'],
    'set',
  ],
  ['3R^2', ['3 R^{2}', 'R^2 \\cdot 3'], ['3r^2', '9R^2', '3R'], 'expression'],
  [
    '\\left[ \\frac{\\pi^2}{8}, \\frac{5 \\pi^2}{4} \\right]',
    ['[\\frac{\\pi^2}{8}, \\frac{5\\pi^2}{4}]', '[0.125\\pi^2, 1.25\\pi^2]'],
    ['(\\frac{\\pi^2}{8}, \\frac{5\\pi^2}{4}]', '[\\frac{\\pi}{8}, \\frac{5\\pi}{4}]', '[\\frac{\\pi^2}{8}, \\frac{5\\pi^2}{2}]'],
    'interval',
  ],
  ['.35625', ['0.35625', '\\frac{57}{160}', '35.625\\%'], ['0.3562', '0.35652', '3.5625'], 'decimal'],
  [
    '(-\\infty, 2) \\cup (3, \\infty)',
    ['(3,\\infty) \\cup (-\\infty,2)', '\\left(-\\infty, 2\\right) \\cup \\left(3, \\infty\\right)'],
    ['(-\\infty, 2] \\cup (3, \\infty)', '(2,3)', '(-\\infty, 3) \\cup (2, \\infty)'],
    'interval',
  ],
  [
    'x^8 + x^7 + x^6 + x^5 + x^4 + x^3 + x^2 + x + 1',
    ['\\frac{x^9-1}{x-1}', '(x^2+x+1)(x^6+x^3+1)'],
    ['x^8 + x^7 + x^6 + x^5 + x^4 + x^3 + x^2 + x', '\\frac{x^9+1}{x+1}', 'x^8 + x^6 + x^4 + x^2 + 1'],
    'polynomial',
  ],
  ['y = 2x + 3', ['2x - y + 3 = 0', 'y - 2x = 3', '2x + 3', '-2x + y - 3 = 0'], ['y = 2x - 3', 'y = 3x + 2', '2x + y + 3 = 0', 'y > 2x + 3'], 'equation'],
  ['-2,1', ['1, -2', 'x=-2 \\text{ or } x=1'], ['-2', '2, -1', '-2, 1, 0'], 'list'],
  ['\\$18.90', ['18.90', '18.9', '\\$18.9'], ['18.09', '1890', '19.80'], 'units'],
  ['15\\mbox{ cm}^2', ['15', '15 \\text{ cm}^2', '15 cm^2'], ['15^2', '51', '1.5'], 'units'],
  ['137 \\frac{1}{2}', ['137.5', '\\frac{275}{2}', '275/2'], ['137', '138', '68.5'], 'mixed'],
  ['8n^2 + 4n + 1', ['1 + 4n + 8n^2', '4n(2n+1) + 1'], ['8n^2 + 4n - 1', '8n^2 + 4n', '8n^2 - 4n + 1'], 'polynomial'],
  ['y = -2x', ['2x + y = 0', '-2x', 'y + 2x = 0'], ['y = 2x', 'y = -2x + 1', 'y = -x'], 'equation'],
  ['(2,12) \\cup (12,102)', ['(12,102) \\cup (2,12)'], ['(2,102)', '(2,12] \\cup (12,102)'], 'interval'],
];
for (const [ref, eqs, neqs, cat] of /** @type {[string, string[], string[], string][]} */ (hand)) {
  const idx = rows.findIndex((r) => r.answer.split('The answer is: ').pop().trim() === ref);
  const src = idx >= 0 ? `math500#${idx}` : 'hand';
  eqs.forEach((o, k) => add(cat, ref, k % 2 ? wrap[k % wrap.length](o) : o, true, src));
  neqs.forEach((o) => add(`${cat}_near_miss`, ref, o, false, src));
}

// Categories not in MATH-500's answers, written by hand.
const extra = [
  ['scientific', '1500', ['1.5 \\times 10^3', '1.5e3', '15 \\cdot 10^{2}'], ['1.5 \\times 10^4', '1.5e2', '150']],
  ['percent', '0.5', ['50\\%', '\\frac{1}{2}', '50 percent'], ['5\\%', '0.05', '5']],
  ['percent', '25\\%', ['25', '0.25', '\\frac14'], ['2.5\\%', '0.025', '75\\%']],
  ['thousands', '1000', ['1,000', '1\\,000', '1 000', '1{,}000'], ['1,001', '100', '10,000']],
  ['tuple_vs_thousands', '(1,234)', ['\\left(1, 234\\right)'], ['1234', '(1234)', '(234, 1)']],
  ['nth_root', '2', ['\\sqrt[3]{8}', '8^{1/3}', '\\sqrt{4}'], ['\\sqrt[3]{9}', '\\sqrt{8}', '8^{1/2}']],
  ['nth_root', '\\sqrt[3]{2}', ['2^{1/3}', '\\sqrt[3]{16}/2'], ['\\sqrt{2}', '2^{1/2}', '\\sqrt[3]{3}']],
  ['operators', '12', ['3 \\cdot 4', '3 \\times 4', '24 \\div 2', '2^2 \\cdot 3'], ['3 + 4', '24 \\div 3', '2^3 \\cdot 3']],
  ['e', '1-\\frac{1}{e}', ['1 - e^{-1}', '\\frac{e-1}{e}'], ['1+\\frac{1}{e}', '1 - e', '\\frac{e+1}{e}']],
  ['e', 'e^2', ['e \\cdot e', '\\exp(2)', 'e^{2}'], ['2e', 'e^3', '\\exp(1)']],
  ['infinity', '\\infty', ['∞', '+\\infty', 'infinity'], ['-\\infty', '0', '10^{100}']],
  [
    'trig',
    '\\frac{\\sqrt{3}}{2}',
    ['\\sin 60^\\circ', '\\cos\\frac{\\pi}{6}', '\\sin(\\pi/3)'],
    ['\\sin 30^\\circ', '\\cos\\frac{\\pi}{3}', '\\frac{\\sqrt{2}}{2}'],
  ],
  ['trig', '\\sin^2 x', ['1 - \\cos^2 x', '(\\sin x)^2', '\\frac{1-\\cos 2x}{2}'], ['\\cos^2 x', '\\sin 2x', '1 + \\cos^2 x']],
  ['log', '\\ln 6', ['\\ln 2 + \\ln 3', '\\log_e 6', '\\ln(12) - \\ln 2'], ['\\ln 5', '\\log 6', '\\ln 2 \\cdot \\ln 3']],
  ['log', '3', ['\\log_2 8', '\\log_{10} 1000', '\\log 1000'], ['\\log_2 9', '\\log_3 8', '\\ln 8']],
  ['factorial', '120', ['5!', '\\frac{6!}{6}', '5 \\cdot 4!'], ['6!', '4!', '5! + 1']],
  ['binomial', '10', ['\\binom{5}{2}', '\\dbinom{5}{3}', '{5 \\choose 2}'], ['\\binom{5}{1}', '\\binom{6}{2}', '\\binom{10}{2}']],
  ['set', '\\{1, 2, 3\\}', ['\\{3, 2, 1\\}', '\\{2,1,3\\}', '\\left\\{1,2,3\\right\\}'], ['\\{1, 2\\}', '\\{1, 2, 4\\}', '\\{1, 2, 3, 4\\}']],
  ['inequality', 'x \\ge 3', ['3 \\le x', 'x \\geq 3', '[3, \\infty)'], ['x > 3', 'x \\le 3', '(3, \\infty)']],
  ['inequality', '-1 < x < 4', ['(-1, 4)', '4 > x > -1'], ['-1 \\le x < 4', '(-1, 4]', '-4 < x < 1']],
  ['equation', '3x-y+13=0', ['y = 3x + 13', '-3x + y - 13 = 0', '6x - 2y + 26 = 0'], ['3x+4y+14=0', '3x-y-13=0', 'y = 3x - 13']],
  ['equation', 'x^2 + y^2 = 25', ['y^2 + x^2 = 25', 'x^2 + y^2 - 25 = 0'], ['x^2 + y^2 = 5', 'x^2 - y^2 = 25', 'x^2 + y^2 = 26']],
  ['scalar_vs_sqrt', '4', ['\\sqrt{16}', '2^2', '\\frac{8}{2}'], ['4\\sqrt{2}', '\\sqrt{4}', '4.01']],
  ['big_integer', '2^{100}', ['1267650600228229401496703205376', '4^{50}', '(2^{50})^2'], ['1267650600228229401496703205377', '2^{99}', '10^{30}']],
  ['exact_rational', '\\frac{1}{3}', ['\\frac{2}{6}', '0.\\overline{3}', '\\frac{1}{3}'], ['0.333', '0.3334', '0.3333334', '\\frac{3}{10}']],
  // the rounding rule: a decimal with >= 4 significant digits that is the value rounded or truncated to its places
  ['rounded_decimal', '\\frac{1}{3}', ['0.3333333', '0.3333', '0.333333333'], ['0.3332', '0.33333334', '0.33']],
  ['rounded_decimal', '\\frac{8}{3}', ['2.6667', '2.666', '2.66666667'], ['2.6668', '2.67', '2.665']],
  ['rounded_decimal', '\\frac{1}{12}', ['0.0833333333333333', '0.08333'], ['0.0834', '0.08334', '0.083']],
  ['rounded_decimal', '\\sqrt{2}', ['1.414', '1.4142', '1.41421356'], ['1.41', '1.4143', '1.415']],
  ['rounded_decimal', '\\pi', ['3.1416', '3.14159', '3.1415'], ['3.14', '3.1417', '3.1414']],
  ['rounded_decimal', '0.3562', ['0.35620'], ['0.35625', '0.356']],
  ['units', '30', ['30 \\text{ cm}', '30 dollars', '\\$30', '30 \\text{ meters}'], ['60 \\text{ cm}', '3', '300']],
  [
    'think',
    '7',
    ['<think>maybe 5? no.</think> The answer is \\boxed{7}', '<think>\n3+4 = 7\n</think>\n**7**'],
    ['<think>the answer is 7</think> I think it is \\boxed{8}', '<think>the answer is \\boxed{7}'],
  ],
  [
    'extraction',
    '42',
    ['#### 42', '<answer>42</answer>', 'Answer: 42', 'Final answer: 42', 'The answer is 42 because 6*7=42.', 'We compute 6*7 and get 42'],
    ['#### 43', '<answer>41</answer>', 'Answer: 24', 'The answer is 4.2.'],
  ],
  // issue 13: families from other verifiers' suites, each positive beside near misses
  ['labelled', '(4,9)', ['(a,b)=(4,9)', 'a=4, b=9', '\\left(m, n\\right) = \\left(4, 9\\right)'], ['(a,b)=(9,4)', 'b=9, a=5', '(a,b)=(4,8)']],
  ['labelled', '12', ['PQ=12', '|PQ| = 12', 'g(t)=12', '\\frac{PR}{RQ}=12'], ['PQ=13', '2PQ = 12', 'g(t) = 12t']],
  ['labelled', '3, 8', ['EF=3, GH=8', 'u = 3 \\text{ and } v = 8'], ['EF=3, GH=9', 'EF=8']],
  ['chain', 'y = 9', ['y = 4+5 = 9', 'y = 3^2 = 9', 'y = 18/2 = 9'], ['y = 4+5 = 10', 'y = 9 = 10', 'z = 9']],
  [
    'chain',
    '\\frac{2}{3}',
    ['t = \\frac{2}{3} \\approx 0.67', 'x = 2/3 \\approx 0.6667', '\\frac{4}{6} = \\frac{2}{3}'],
    ['t = \\frac{2}{3} + 1 \\approx 1.67', 't \\approx 0.67', '\\frac{2}{3} = \\frac{3}{4}'],
  ],
  ['equation_not_value', '6', ['k = 6'], ['3k = 6', 'k + 1 = 6', 'k^2 = 6']],
  ['ratio', '5:8', ['10:16', '5 : 8', 'AB:CD = 5:8'], ['8:5', '5:9', '5:8:1']],
  ['time', '9:30', ['9:30'], ['9:03', '930', '3:30']],
  ['decimal_comma', '3.25', ['3,25', '\\text{Total: } 3,25 \\text{ EUR}', '0003,25'], ['3,250', '325', '3.52']],
  ['decimal_comma', '0,125', ['0.125', '\\frac{1}{8}'], ['125', '0.0125', '1.25']],
  [
    'set_operation',
    '[3,4]',
    ['[1,4] \\cap [3,6]', '[1,4] \\setminus [0,3)', '[3,4] \\cup \\{4\\}'],
    ['[1,4) \\cap [3,6]', '[1,4] \\setminus [0,3]', '[1,4] \\cup [3,6]'],
  ],
  [
    'set_operation',
    '(-\\infty, 1) \\cup (1, \\infty)',
    ['\\mathbb{R} \\setminus \\{1\\}', 'x \\neq 1', '(-\\infty, 1) \\cup (1, 5] \\cup (5, \\infty)'],
    ['\\mathbb{R}', '\\mathbb{R} \\setminus \\{-1\\}', 'x \\ne -1'],
  ],
  [
    'set_operation',
    '\\{2, 5\\}',
    ['\\{2,3,5\\} \\setminus \\{3\\}', '\\{2,5,7\\} \\cap \\{1,2,5\\}'],
    ['\\{2,3,5\\} \\setminus \\{5\\}', '\\{2,5\\} \\cup \\{7\\}'],
  ],
  ['inequality_set', '[-4,-2] \\cup [2,4]', ['2 \\le |x| \\le 4', 'x \\in [-4,-2] \\cup [2,4]'], ['2 < |x| \\le 4', '2 \\le x \\le 4', '2 \\le |x| \\le 5']],
  [
    'inequality_set',
    '(-\\infty, -3) \\cup (3, \\infty)',
    ['x < -3 \\text{ or } x > 3', '|x| > 3', 'x^2 > 9'],
    ['x < -3 \\text{ or } x \\ge 3', '|x| \\ge 3', 'x > 3'],
  ],
  ['inequality_set', '(0, 5)', ['0 < h(x) < 5', '0<y<5'], ['0 \\le h(x) < 5', '0 < h(x) < 6']],
  [
    'matrix_arithmetic',
    '\\begin{pmatrix} 3 & 1 \\\\ 0 & 5 \\end{pmatrix}',
    [
      '\\begin{pmatrix} 1 & 1 \\\\ 0 & 2 \\end{pmatrix} + \\begin{pmatrix} 2 & 0 \\\\ 0 & 3 \\end{pmatrix}',
      '\\begin{pmatrix} 3 & 1 \\\\ 0 & 5 \\end{pmatrix} \\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}',
      'The result is $\\begin{pmatrix} 3 & 1 \\\\ 0 & 5 \\end{pmatrix}$.',
    ],
    [
      '\\begin{pmatrix} 1 & 1 \\\\ 0 & 2 \\end{pmatrix} - \\begin{pmatrix} 2 & 0 \\\\ 0 & 3 \\end{pmatrix}',
      '\\begin{pmatrix} 3 & 0 \\\\ 1 & 5 \\end{pmatrix}',
      '\\begin{pmatrix} 1 & 1 \\\\ 0 & 2 \\end{pmatrix} \\begin{pmatrix} 2 & 0 \\\\ 0 & 3 \\end{pmatrix}',
    ],
  ],
  [
    'matrix_arithmetic',
    '\\begin{pmatrix} -2 & 0 \\\\ 4 & 6 \\end{pmatrix}',
    ['2\\begin{pmatrix} -1 & 0 \\\\ 2 & 3 \\end{pmatrix}', '-\\begin{pmatrix} 2 & 0 \\\\ -4 & -6 \\end{pmatrix}'],
    ['3\\begin{pmatrix} -1 & 0 \\\\ 2 & 3 \\end{pmatrix}', '\\begin{pmatrix} 2 & 0 \\\\ -4 & -6 \\end{pmatrix}'],
  ],
  ['sum_product', '210', ['\\sum_{k=1}^{20} k', '\\sum_{j=0}^{20} j', '\\binom{21}{2}'], ['\\sum_{k=1}^{21} k', '\\sum_{k=1}^{20} k^2', '\\prod_{k=1}^{3} k']],
  ['sum_product', '\\frac{m(m+1)(2m+1)}{6}', ['\\sum_{i=1}^{m} i^2'], ['\\sum_{i=1}^{m} i', '\\sum_{i=0}^{m-1} i^2']],
  ['sum_product', '720', ['\\prod_{k=1}^{6} k', '6!', '\\prod_{k=2}^{6} k'], ['\\prod_{k=1}^{5} k', '\\prod_{k=1}^{6} 2k']],
  [
    'series',
    '\\frac{4}{3}',
    ['\\sum_{n=0}^{\\infty} \\frac{1}{4^n}', '\\sum_{n=0}^{\\infty} (\\frac{1}{4})^{n}'],
    ['\\sum_{n=1}^{\\infty} \\frac{1}{4^n}', '\\sum_{n=0}^{\\infty} \\frac{1}{3^n}'],
  ],
  ['series', '\\frac{\\pi^2}{6}', ['\\sum_{k=1}^{\\infty} \\frac{1}{k^2}'], ['\\sum_{k=2}^{\\infty} \\frac{1}{k^2}', '\\sum_{k=1}^{\\infty} \\frac{1}{k^3}']],
  [
    'integral',
    '\\frac{1}{4}',
    ['\\int_0^1 t^3 \\, dt', '\\int_{0}^{1} x^{3} dx', '\\int_0^{\\infty} e^{-4x} dx'],
    ['\\int_0^1 t^2 \\, dt', '\\int_0^2 t^3 dt', '\\int_0^{\\infty} e^{-2x} dx'],
  ],
  ['integral', '2', ['\\int_0^{\\pi} \\sin x \\, dx', '\\int_{-1}^{1} 1 \\, dx'], ['\\int_0^{\\pi} \\cos x \\, dx', '\\int_0^{\\pi/2} \\sin x \\, dx']],
  [
    'limit',
    '1',
    ['\\lim_{x \\to 0} \\frac{\\sin x}{x}', '\\lim_{n \\to \\infty} \\frac{n}{n+1}', '\\lim_{x \\to 0^+} x^x'],
    ['\\lim_{x \\to 0} \\frac{\\sin 2x}{x}', '\\lim_{n \\to \\infty} \\frac{2n}{n+1}', '\\lim_{x \\to 1} \\frac{\\sin x}{x}'],
  ],
  [
    'limit',
    'e',
    ['\\lim_{n\\to\\infty} \\left(1+\\frac{1}{n}\\right)^{n}'],
    ['\\lim_{n\\to\\infty} \\left(1+\\frac{2}{n}\\right)^{n}', '\\lim_{n\\to\\infty} \\left(1+\\frac{1}{n}\\right)^{2n}'],
  ],
  ['mod', '4', ['19 \\bmod 5', '34 \\mod 10', 'n \\equiv 4 \\pmod{9}'], ['19 \\bmod 4', '34 \\mod 7', 'n \\equiv 5 \\pmod{9}']],
  [
    'operatorname',
    '9',
    ['\\operatorname{gcd}(27, 36)', '\\gcd(18, 27)', '\\max(2, 9, 4)', '\\operatorname{max}\\{1, 9, 3\\}', '\\min(9, 12)'],
    ['\\operatorname{lcm}(27, 36)', '\\gcd(18, 24)', '\\min(2, 9, 4)', '\\max\\{1, 8, 3\\}'],
  ],
  [
    'prose_answer',
    '27',
    ['Final Answer: The smallest such $k$ is 27.', 'Therefore the total number of tiles is $27$.', 'So the value we want, $n$, equals 27'],
    ['Final Answer: The smallest such $k$ is 28.', 'Therefore the total is $26$ and not 27 tiles plus one more, so 28.'],
  ],
  [
    'prose_answer',
    'x \\le -1',
    ['Hence $x \\leq -1$ is the answer set.', 'We conclude that $x \\le -1$.'],
    ['Hence $x < -1$ is the answer set.', 'We conclude that $x \\ge -1$.'],
  ],
  [
    'final_after_box',
    '34',
    ['First $\\boxed{12}$, then $\\boxed{22}$. Final Answer: The final answer is $34$. I hope it is correct.'],
    ['First $\\boxed{34}$, then $\\boxed{22}$. Final Answer: The final answer is $35$.'],
  ],
  [
    'languages',
    '18',
    ['Réponse : 18', 'Respuesta: 18', 'Die Antwort ist 18.', '答案：18', '最终答案是 18', '**18个**'],
    ['Réponse : 81', '答案：19', 'La respuesta es 8'],
  ],
  [
    'choice_in_sentence',
    'C',
    ['I am confident the answer is C, since A and B fail.', 'The correct option is (C).', '**C**'],
    ['I am confident the answer is B, since A and C fail.', 'The correct option is (D).'],
  ],
  [
    'joined_answers',
    '3, -4',
    [
      '\\boxed{3} \\text{ and } \\boxed{-4}',
      '$x_1 = \\boxed{3}$ and $x_2 = \\boxed{-4}$',
      '\\boxed{-4} \\quad \\text{and} \\quad \\boxed{3}',
      '\\(\\boxed{3}\\) and \\(\\boxed{-4}\\)',
    ],
    ['\\boxed{3} \\text{ or } \\boxed{-4}', '\\boxed{3} then we check that \\boxed{-4}', '\\boxed{3} \\text{ and } \\boxed{4}'],
  ],
  [
    'joined_answers',
    '(1, 2), (2, 1)',
    ['(a, b) = (1, 2) \\text{ and } (2, 1)', '\\boxed{(1, 2)} \\quad \\text{and} \\quad \\boxed{(2, 1)}', '(2,1), (1,2), (1,2)'],
    ['(a, b) = (1, 2)', '(1, 2), (2, 2)', '\\{1, 2\\}'],
  ],
  ['double_escaped', '\\frac{3}{4}', ['\\\\frac{3}{4}', '\\\\left( \\\\frac{3}{4} \\\\right)'], ['\\\\frac{4}{3}', '\\\\frac{3}{5}']],
  ['overflow', '10^{400}', ['100^{200}', '10^{200} \\cdot 10^{200}'], ['10^{401}', '\\infty', '10^{399}']],
  [
    'boxes',
    '1, 2',
    ['\\boxed{1} and \\boxed{2}', 'so $x = \\boxed{2}$ or $x = \\boxed{1}$... listing both: \\boxed{1, 2}'],
    ['\\boxed{1}', '\\boxed{1} or \\boxed{2}'],
  ],
  [
    'set_builder',
    '(2, \\infty)',
    ['\\{x \\mid x > 2\\}', '\\{x : x > 2\\}', '\\{x \\in \\mathbb{R} : x > 2\\}'],
    ['\\{x \\mid x \\ge 2\\}', '\\{x : x < 2\\}', '\\{2\\}'],
  ],
  ['compound_units', '12', ['12 \\, \\text{m/s}', '12 \\text{ km/h}', '12 \\text{m/s^2}'], ['1.2 \\text{ m/s}', '120 \\text{ km/h}']],
  ['labelled', '\\frac{x-1}{2}', ['f^{-1}(x) = \\frac{x-1}{2}', 'g(x) = \\frac{x}{2} - \\frac{1}{2}'], ['f^{-1}(x) = \\frac{x+1}{2}', 'g(x) = 2x - 1']],
  ['pm_value', '3, -3', ['x = \\pm 3', '\\pm 3', '(x,y) = (3, -3)'], ['x = 3', 'x = \\pm 2', '3, 3']],
  ['labelled', '15', ['Therefore, $m+n = 15$.', 'a + b + c = 15', 'p - q = 15'], ['m + 2n = 15', 'm+n = 16', 'mn = 14']],
  ['prose_list', '4, -5', ['The roots are 4 and -5.', 'So x is 4 or -5, i.e. the values 4 and -5'], ['The roots are 4 and 5.', 'We tried 3 and then found -5']],
  [
    'choice_in_sentence',
    'B',
    ['Comparing A, C and B, the right one is B.', 'I would go with B'],
    ['Comparing A, C and B, the right one is C.', 'A ball is B-shaped, so A'],
  ],
  ['malformed_inline', '7', ['Answer $$ \n 7 \n $$', 'Answer \\[ \n 7 \n \\]', 'Answer $ 7 $'], ['Answer $ \n 7 \n $', 'Answer \\( \n 7 \n \\)']],
];
for (const [cat, ref, eqs, neqs] of extra) {
  for (const o of eqs) add(cat, ref, o, true, 'hand');
  for (const o of neqs) add(`${cat}_near_miss`, ref, o, false, 'hand');
}

fs.writeFileSync(outPath, JSON.stringify(pairs, null, 1) + '\n');
const eq = pairs.filter((p) => p.equivalent).length;
console.log(
  `${pairs.length} pairs: ${eq} equivalent, ${pairs.length - eq} not equivalent, ${new Set(pairs.map((p) => p.category.replace(/_near_miss$/, ''))).size} categories`,
);
