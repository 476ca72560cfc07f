// Parameters for the Punkt sentence splitter: abbreviations, frequent sentence starters and the
// common lowercase words used by the orthographic heuristic. Hand-written for English (the
// reference uses NLTK's trained `english.pickle`, which we do not ship); see docs/ifeval.md.

/** Abbreviation types (lowercase, without the final period). */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  (
    'mr mrs ms dr prof st jr sr inc ltd co corp llc plc vs etc e.g i.e cf al approx dept est fig figs ' +
    'no nos vol vols pp p ed eds rev gen col lt sgt capt cmdr adm gov sen rep pres hon mt ft ave blvd rd ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun ' +
    'u.s u.k u.n u.s.a a.m p.m b.c a.d ph.d m.d b.a m.a b.s m.s d.c n.y l.a ' +
    'mass calif conn fla ill kan mich minn miss mo neb nev okla ore pa penn tenn tex va wash wis ' +
    'assn bros messrs mme mlle univ inst natl intl govt dist div ch sec art op ca c misc ref tel ext'
  ).split(/\s+/),
);

/** Frequent sentence starters (lowercased types). */
export const SENTENCE_STARTERS: ReadonlySet<string> = new Set(
  (
    'the a an this that these those it its he she we they you i there here but and or so yet however ' +
    'in on at for with as if when while after before although though because since during ' +
    'his her their our my your some many most all each every no one two three first then ' +
    'what why how who where which mr mrs ms dr also still thus moreover furthermore finally ' +
    'meanwhile today now instead overall additionally nevertheless'
  ).split(/\s+/),
);

/**
 * Words seen in lowercase in ordinary text and never capitalised mid-sentence: a capitalised
 * occurrence after a period-final token is evidence of a sentence start.
 */
export const COMMON_LOWERCASE: ReadonlySet<string> = new Set(
  (
    'the a an this that these those it its he she we they you there here but and or so yet however ' +
    'in on at for with as if when while after before although though because since during to of by ' +
    'from into about over under between through his her their our my your some many most all each ' +
    'every no not one two three then what why how who where which also still thus moreover ' +
    'furthermore finally meanwhile today now instead overall additionally nevertheless is are was ' +
    'were be been being have has had do does did will would can could should may might must ' +
    'let please remember consider make take use try keep note just only even both either neither ' +
    'such other another more less much very well good great best new old first last next once again ' +
    'always never often sometimes perhaps maybe yes hello thank thanks dear sincerely regards'
  ).split(/\s+/),
);
