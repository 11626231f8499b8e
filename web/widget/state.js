// The state codec: each widget declares its state fields, and its state has a
// versioned, compact text form, URLSearchParams style with a version field:
//
//   v=1&a=3,4&b=4,3          (vectors: numbers joined by ",")
//   v=1&k=1,2,1,0;-1,-2,0,1   (matrices: rows joined by ";")
//   v=1&scale=sqrt-dk&show=1  (enums by name, booleans as 1 or 0)
//
// Reading never throws and never trusts its input: every value is checked
// (numbers finite and within the field's bounds, sizes within the declared
// range, enum values from the list, text length capped before any split), and
// a value that fails is reported as a problem and replaced by the default.
// Older versions are read through the widget's migrations, one step per
// version, so a link made today keeps working after the format changes.
// Pure functions, no DOM.

/** Longest value text read at all (longer ones are rejected before parsing). */
export const MAX_VALUE_TEXT = 4000;
/** Longest whole state text read at all. */
export const MAX_STATE_TEXT = 16000;

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

// ------------------------------------------------------------ field types

/**
 * A number field. `integer: true` accepts whole numbers only; `values`, a
 * list of the numbers offered (sizes of a menu), accepts those only (min and
 * max are then the smallest and the largest of them).
 * @param {{ min?: number, max?: number, values?: number[], default: number, integer?: boolean, label?: string }} o
 */
export function number(o) {
  if (o.values !== undefined) {
    if (!Array.isArray(o.values) || !o.values.length || !o.values.every(Number.isFinite))
      throw new Error('state field: values must be a list of numbers');
    return checkSpec({
      type: 'number',
      ...o,
      values: Object.freeze([...o.values]),
      min: Math.min(...o.values),
      max: Math.max(...o.values),
    });
  }
  return checkSpec({ type: 'number', ...o });
}

/**
 * A vector field. `length` is fixed, or give `minLength` and `maxLength`.
 * @param {{ length?: number, minLength?: number, maxLength?: number, min: number, max: number, default: number[] }} o
 */
export function vector(o) {
  const minLength = o.minLength ?? o.length;
  const maxLength = o.maxLength ?? o.length;
  return checkSpec({ type: 'vector', ...o, minLength, maxLength });
}

const ANY_MATRIX = {
  type: 'matrix',
  minRows: 1,
  maxRows: Infinity,
  minCols: 1,
  maxCols: Infinity,
  min: -Infinity,
  max: Infinity,
};

/**
 * A matrix written as a link writes it, rows by ';' and entries by ',', read by the links' own
 * reader (readValue): rowsFrom('1,0;0,1') is [[1, 0], [0, 1]]. Throws on a malformed literal.
 */
export function rowsFrom(text) {
  const read = readValue(ANY_MATRIX, text);
  if (read.error) throw new Error(`rowsFrom: "${text}" is not a matrix written as a link writes it`);
  return read.value;
}

/**
 * A matrix field (rows of equal length). `rows`/`cols` fixed, or give
 * min/max bounds for either.
 * @param {{ rows?: number, cols?: number, minRows?: number, maxRows?: number, minCols?: number, maxCols?: number, min: number, max: number, default: number[][] }} o
 */
export function matrix(o) {
  return checkSpec({
    type: 'matrix',
    ...o,
    minRows: o.minRows ?? o.rows,
    maxRows: o.maxRows ?? o.rows,
    minCols: o.minCols ?? o.cols,
    maxCols: o.maxCols ?? o.cols,
  });
}

/** A matrix field of fixed size within [-limit, limit], its default (and so its size) written as rowsFrom takes it. */
export function fixedMatrix(text, limit) {
  const rows = rowsFrom(text);
  return matrix({ rows: rows.length, cols: rows[0].length, min: -limit, max: limit, default: rows });
}

/** One of a list of names. @param {{ values: string[], default: string }} o */
export function choice(o) {
  return checkSpec({ type: 'enum', ...o });
}

/** A boolean, written 1 or 0. @param {{ default: boolean }} o */
export function bool(o) {
  return checkSpec({ type: 'bool', ...o });
}

function checkSpec(spec) {
  // A declaration error is a programming error: fail loudly at definition time.
  const problem = readValue(spec, writeValue(spec, spec.default));
  if (problem.error)
    throw new Error(`state field: the default does not satisfy its own declaration (${problem.error})`);
  return Object.freeze(spec);
}

// ------------------------------------------------------------ one value

/** Reads one number, or null. Accepts a typographic minus sign. */
export function readNumber(text, spec) {
  const t = String(text)
    .trim()
    .replace(/\u2212/g, '-');
  if (t.length > 40 || !NUMBER.test(t)) return null;
  const x = Number(t);
  if (!Number.isFinite(x) || x < spec.min || x > spec.max) return null;
  if (spec.integer && !Number.isInteger(x)) return null;
  if (spec.values && !spec.values.includes(x)) return null;
  return x;
}

function readList(text, spec, minLength, maxLength) {
  // Count separators before splitting, so a huge list costs nothing.
  let count = 1;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 44) count += 1;
  if (count < minLength || count > maxLength) return null;
  const values = text.split(',').map((t) => readNumber(t, spec));
  return values.every((x) => x !== null) ? values : null;
}

const rangeOf = (spec) => `from ${fmt(spec.min)} to ${fmt(spec.max)}`;
const size = (lo, hi) => (lo === hi ? String(lo) : `${lo} to ${hi}`);

/** What a field accepts, in words (for the note shown when a value is refused). */
export function expected(spec) {
  const range = rangeOf(spec);
  switch (spec.type) {
    case 'number':
      return spec.values
        ? `one of ${spec.values.map(fmt).join(', ')}`
        : `${spec.integer ? 'a whole number' : 'a number'} ${range}`;
    case 'vector':
      return `${size(spec.minLength, spec.maxLength)} numbers separated by commas, each ${range}`;
    case 'matrix':
      return `${size(spec.minRows, spec.maxRows)} rows separated by semicolons, each ${size(spec.minCols, spec.maxCols)} numbers separated by commas, ${range}`;
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'bool':
      return '1 or 0';
    default:
      return 'a known value';
  }
}

/** What a vector or matrix field accepts from JS (the `state` property): arrays, not their text form. */
function expectedArray(spec) {
  const range = rangeOf(spec);
  return spec.type === 'vector'
    ? `an array of ${size(spec.minLength, spec.maxLength)} numbers, each ${range}`
    : `an array of ${size(spec.minRows, spec.maxRows)} rows, each an array of ${size(spec.minCols, spec.maxCols)} numbers, ${range}`;
}

function fmt(x) {
  return String(x).replace('-', '\u2212');
}

/**
 * Reads the text of one field. @returns {{ value } | { error: string }}
 */
export function readValue(spec, text) {
  if (typeof text !== 'string' || text.length > MAX_VALUE_TEXT) return { error: expected(spec) };
  let value = null;
  switch (spec.type) {
    case 'number':
      value = readNumber(text, spec);
      break;
    case 'vector':
      value = readList(text, spec, spec.minLength, spec.maxLength);
      break;
    case 'matrix': {
      let rows = 1;
      for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 59) rows += 1;
      if (rows < spec.minRows || rows > spec.maxRows) break;
      const m = text.split(';').map((row) => readList(row, spec, spec.minCols, spec.maxCols));
      if (m.every((row) => row !== null) && m.every((row) => row.length === m[0].length)) value = m;
      break;
    }
    case 'enum':
      value = spec.values.includes(text.trim()) ? text.trim() : null;
      break;
    case 'bool':
      value = text.trim() === '1' ? true : text.trim() === '0' ? false : null;
      break;
    default:
      break;
  }
  return value === null ? { error: expected(spec) } : { value };
}

/** A value as it appears in the text form (already safe inside a URL query). */
export function writeValue(spec, value) {
  const num = (x) => encodeURIComponent(String(x)); // keeps the "+" of "1e+21"
  switch (spec.type) {
    case 'number':
      return num(value);
    case 'vector':
      return value.map(num).join(',');
    case 'matrix':
      return value.map((row) => row.map(num).join(',')).join(';');
    case 'enum':
      return encodeURIComponent(value);
    case 'bool':
      return value ? '1' : '0';
    default:
      throw new Error(`unknown field type ${spec.type}`);
  }
}

/** Checks a value given in JS (the `state` property): null when it fits the field. */
export function checkValue(spec, value) {
  const plain = (x) => (typeof x === 'number' ? x : NaN);
  // JS values must already have the field's type: a string "4" for a number
  // field (or " on" for a choice) would pass the text check below and then be
  // stored as it is. A value of another type is told so, since its text may
  // well be one the field accepts.
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;
  if (spec.type === 'number' && typeof value !== 'number') return `${expected(spec)}, as a JS number (not ${kind})`;
  if (spec.type === 'enum' && typeof value !== 'string') return `${expected(spec)}, as a JS string (not ${kind})`;
  if (spec.type === 'enum' && !spec.values.includes(value)) return expected(spec);
  if (spec.type === 'bool' && typeof value !== 'boolean') return `true or false (not ${kind})`;
  const list = spec.type === 'vector' || spec.type === 'matrix';
  if (list && !Array.isArray(value) && !(spec.type === 'vector' && value instanceof Float32Array))
    return `${expectedArray(spec)} (not ${kind})`;
  try {
    const text =
      spec.type === 'vector'
        ? Array.from(value, (x) => String(plain(x))).join(',')
        : spec.type === 'matrix'
          ? value.map((row) => Array.from(row, (x) => String(plain(x))).join(',')).join(';')
          : spec.type === 'bool'
            ? value === true
              ? '1'
              : value === false
                ? '0'
                : 'x'
            : String(value);
    const { error } = readValue(spec, text);
    return error && list ? expectedArray(spec) : (error ?? null);
  } catch {
    return list ? expectedArray(spec) : expected(spec);
  }
}

/**
 * A value given from JS as a note shows it: text as it is, numbers as JS
 * writes them (NaN, Infinity; JSON would write null), arrays in brackets,
 * anything else as JSON.
 */
export function valueText(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  try {
    if (Array.isArray(value) || ArrayBuffer.isView(value)) return `[${Array.from(value, valueText).join(',')}]`;
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Reads a whole state given from JS (the `state` property): each field must
 * have its type and fit (checkValue); fields not given keep their defaults, as
 * do fields refused, and names that are no field are reported. The result has
 * passed the declaration's cross-field check (checkState).
 * @returns {{ state: object, problems: { name: string, value: string, expected: string }[] }}
 */
export function readStateValue(decl, value) {
  const next = defaultState(decl);
  const problems = [];
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isObject) {
    const names = Object.keys(decl.fields).join(', ');
    problems.push({ name: 'state', value: valueText(value), expected: `an object of field values (${names})` });
  } else {
    for (const name of Object.keys(value))
      if (!Object.hasOwn(decl.fields, name))
        problems.push({ name, value: valueText(value[name]), expected: notAField(decl) });
  }
  for (const [name, spec] of Object.entries(decl.fields)) {
    if (!isObject || !Object.hasOwn(value, name)) continue;
    const error = checkValue(spec, value[name]);
    if (error) problems.push({ name, value: valueText(value[name]), expected: error });
    else next[name] = copyValue(value[name]);
  }
  const checked = checkState(decl, next);
  return { state: checked.state, problems: [...problems, ...checked.problems] };
}

export function copyValue(value) {
  if (Array.isArray(value)) return value.map(copyValue);
  if (value instanceof Float32Array) return Array.from(value);
  if (value !== null && typeof value === 'object') {
    // A whole state ({field: value}): copy every field, so that changing a
    // copy never changes the widget's own state behind its back.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyValue(v)]));
  }
  return value;
}

// ------------------------------------------------------------ whole states

/**
 * A widget's state declaration.
 * @param {{ version: number, fields: Record<string, object>, migrations?: Record<number, (p: URLSearchParams) => URLSearchParams>, check?: (state: object) => { name: string, value: string, expected: string }[] }} o
 *   migrations[n] turns the parameters of version n into those of version n + 1.
 *   check(state), optional, finds combinations of fields that each fit their
 *   declaration but that the widget cannot compute together (h must divide
 *   d_model, two vectors of the same length). It returns one problem per
 *   field to reset, named so that resetting those fields to their defaults
 *   gives a state that passes (see checkState). The defaults must pass.
 */
export function defineState({ version, fields, migrations = {}, check = null }) {
  if (!Number.isInteger(version) || version < 1) throw new Error('state version must be an integer >= 1');
  if ('v' in fields) throw new Error('state: "v" is the version field; name the field otherwise');
  for (let v = Math.min(...Object.keys(migrations).map(Number), version); v < version; v += 1) {
    if (typeof migrations[v] !== 'function') throw new Error(`state: no migration from version ${v}`);
  }
  if (check !== null && typeof check !== 'function') throw new Error('state: check must be a function');
  const decl = Object.freeze({
    version,
    fields: Object.freeze({ ...fields }),
    migrations: Object.freeze({ ...migrations }),
    check,
  });
  if (check && check(defaultState(decl)).length)
    throw new Error("state: the defaults do not pass the declaration's own check");
  return decl;
}

/** A migration that leaves out the parameters `names` (fields a later version no longer has). */
export function dropFields(...names) {
  return (params) => {
    for (const name of names) params.delete(name);
    return params;
  };
}

export function defaultState(decl) {
  return Object.fromEntries(Object.entries(decl.fields).map(([name, spec]) => [name, copyValue(spec.default)]));
}

/** The state as text: `v=<version>&name=value&...`, fields in declaration order. */
export function encodeState(decl, state) {
  const parts = [`v=${decl.version}`];
  for (const [name, spec] of Object.entries(decl.fields)) parts.push(`${name}=${writeValue(spec, state[name])}`);
  return parts.join('&');
}

/** The oldest version this declaration can read (0 when it has a migration from 0). */
function oldestVersion(decl) {
  const keys = Object.keys(decl.migrations).map(Number);
  return keys.length ? Math.min(...keys) : decl.version;
}

/**
 * Reads into `state` each field of `decl` whose text `get(name)` gives (null: not given); a text its
 * field refuses leaves the field as it was and is reported in `problems` ({ name, value, expected }).
 */
export function readFields(decl, get, state, problems) {
  for (const [name, spec] of Object.entries(decl.fields)) {
    const text = get(name);
    if (text === null) continue;
    const read = readValue(spec, text);
    if (read.error) problems.push({ name, value: text, expected: read.error });
    else state[name] = read.value;
  }
}

/**
 * Applies the declaration's cross-field check to `state` (a state whose
 * fields each fit their declaration). Every field a problem names is reset
 * to its default; should the result still fail (a check that named too few
 * fields), the fields it names then are reset too, and, if that does not
 * settle it, the whole state goes back to the defaults, which always pass.
 * @returns {{ state: object, problems: { name: string, value: string, expected: string }[] }}
 *   a new state (the input is not changed) and the first round's problems
 */
export function checkState(decl, state) {
  if (!decl.check) return { state, problems: [] };
  const problems = (decl.check(state) ?? []).filter((p) => Object.hasOwn(decl.fields, p.name));
  if (!problems.length) return { state, problems: [] };
  const defaults = defaultState(decl);
  let next = copyValue(state);
  const reset = new Set();
  let round = problems;
  while (round.length) {
    const before = reset.size;
    for (const p of round) if (Object.hasOwn(decl.fields, p.name)) reset.add(p.name);
    if (reset.size === before) return { state: defaults, problems };
    for (const name of reset) next[name] = copyValue(defaults[name]);
    round = decl.check(next) ?? [];
  }
  return { state: next, problems };
}

/** The names of the declaration's fields, as a list ("a, b and scale"). */
function fieldList(decl) {
  const names = Object.keys(decl.fields);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');
}

/** What a name that is no field of the widget is told (after "expected"). */
const notAField = (decl) => `no such name: it is not a field of this widget; its fields are ${fieldList(decl)}`;

/**
 * Reads a state from its text form or from URLSearchParams.
 *
 * The text form (a string: the stateText property, the `state` attribute,
 * embed.html's s=) holds this widget's state only, so every name in it that
 * is neither a field nor `v` is reported, and so is a name given twice (the
 * first is used). URLSearchParams (the page address, which carries other
 * parameters too: ch, impl, ...) are read for the field names and `v` only;
 * other names are left alone, a field given twice is still reported.
 * A missing `v` means the oldest version the widget can read. The result
 * has passed the declaration's cross-field check (checkState).
 * @returns {{ state: object, problems: { name: string, value: string, expected: string }[], fromVersion: number }}
 */
export function decodeState(decl, input) {
  const state = defaultState(decl);
  const problems = [];
  let params;
  const isText = typeof input === 'string';
  if (isText) {
    if (input.length > MAX_STATE_TEXT) {
      problems.push({ name: 'state', value: input, expected: `at most ${MAX_STATE_TEXT} characters` });
      return { state, problems, fromVersion: decl.version };
    }
    params = new URLSearchParams(input.replace(/^[?#]/, ''));
  } else {
    params = new URLSearchParams(input);
  }
  const known = (name) => name === 'v' || Object.hasOwn(decl.fields, name);
  const seen = new Set();
  for (const [name, value] of params) {
    if (!isText && !known(name)) continue;
    if (seen.has(name))
      problems.push({ name, value, expected: `one ${name}= only (the text gives more than one; the first is used)` });
    seen.add(name);
  }
  let version = oldestVersion(decl);
  const v = params.get('v');
  if (v !== null) {
    const n = /^\d{1,3}$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= oldestVersion(decl) && n <= decl.version) version = n;
    else {
      problems.push({
        name: 'v',
        value: v,
        expected: `a state version from ${oldestVersion(decl)} to ${decl.version}`,
      });
      version = decl.version;
    }
  }
  const fromVersion = version;
  while (version < decl.version) {
    params = decl.migrations[version](new URLSearchParams(params));
    version += 1;
  }
  if (isText) {
    // Names left after the migrations that this version does not know.
    const reported = new Set();
    for (const [name, value] of params) {
      if (known(name) || reported.has(name)) continue;
      reported.add(name);
      problems.push({
        name,
        value,
        expected: notAField(decl),
      });
    }
  }
  readFields(decl, (name) => params.get(name), state, problems);
  const checked = checkState(decl, state);
  return { state: checked.state, problems: [...problems, ...checked.problems], fromVersion };
}

/** Field names plus `v`: the URL parameters a state uses. */
export function stateParamNames(decl) {
  return ['v', ...Object.keys(decl.fields)];
}
