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
 * A number field. `integer: true` accepts whole numbers only.
 * @param {{ min: number, max: number, default: number, integer?: boolean, label?: string }} o
 */
export function number(o) {
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
  if (problem.error) throw new Error(`state field: the default does not satisfy its own declaration (${problem.error})`);
  return Object.freeze(spec);
}

// ------------------------------------------------------------ one value

/** Reads one number, or null. Accepts a typographic minus sign. */
export function readNumber(text, spec) {
  const t = String(text).trim().replace(/\u2212/g, '-');
  if (t.length > 40 || !NUMBER.test(t)) return null;
  const x = Number(t);
  if (!Number.isFinite(x) || x < spec.min || x > spec.max) return null;
  if (spec.integer && !Number.isInteger(x)) return null;
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

/** What a field accepts, in words (for the note shown when a value is refused). */
export function expected(spec) {
  const range = `from ${fmt(spec.min)} to ${fmt(spec.max)}`;
  const size = (lo, hi) => (lo === hi ? String(lo) : `${lo} to ${hi}`);
  switch (spec.type) {
    case 'number':
      return `${spec.integer ? 'a whole number' : 'a number'} ${range}`;
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
  try {
    if (spec.type === 'vector' && !Array.isArray(value) && !(value instanceof Float32Array)) return expected(spec);
    if (spec.type === 'matrix' && !Array.isArray(value)) return expected(spec);
    const text =
      spec.type === 'vector'
        ? Array.from(value, (x) => String(plain(x))).join(',')
        : spec.type === 'matrix'
          ? value.map((row) => Array.from(row, (x) => String(plain(x))).join(',')).join(';')
          : spec.type === 'bool'
            ? value === true ? '1' : value === false ? '0' : 'x'
            : String(value);
    return readValue(spec, text).error ?? null;
  } catch {
    return expected(spec);
  }
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
 * @param {{ version: number, fields: Record<string, object>, migrations?: Record<number, (p: URLSearchParams) => URLSearchParams> }} o
 *   migrations[n] turns the parameters of version n into those of version n + 1.
 */
export function defineState({ version, fields, migrations = {} }) {
  if (!Number.isInteger(version) || version < 1) throw new Error('state version must be an integer >= 1');
  if ('v' in fields) throw new Error('state: "v" is the version field; name the field otherwise');
  for (let v = Math.min(...Object.keys(migrations).map(Number), version); v < version; v += 1) {
    if (typeof migrations[v] !== 'function') throw new Error(`state: no migration from version ${v}`);
  }
  return Object.freeze({ version, fields: Object.freeze({ ...fields }), migrations: Object.freeze({ ...migrations }) });
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
 * Reads a state from its text form or from URLSearchParams (only the field
 * names and `v` are looked at; other parameters are left alone).
 * A missing `v` means the oldest version the widget can read.
 * @returns {{ state: object, problems: { name: string, value: string, expected: string }[], fromVersion: number }}
 */
export function decodeState(decl, input) {
  const state = defaultState(decl);
  const problems = [];
  let params;
  if (typeof input === 'string') {
    if (input.length > MAX_STATE_TEXT) {
      problems.push({ name: 'state', value: input, expected: `at most ${MAX_STATE_TEXT} characters` });
      return { state, problems, fromVersion: decl.version };
    }
    params = new URLSearchParams(input.replace(/^[?#]/, ''));
  } else {
    params = new URLSearchParams(input);
  }
  let version = oldestVersion(decl);
  const v = params.get('v');
  if (v !== null) {
    const n = /^\d{1,3}$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= oldestVersion(decl) && n <= decl.version) version = n;
    else {
      problems.push({ name: 'v', value: v, expected: `a state version from ${oldestVersion(decl)} to ${decl.version}` });
      version = decl.version;
    }
  }
  const fromVersion = version;
  while (version < decl.version) {
    params = decl.migrations[version](new URLSearchParams(params));
    version += 1;
  }
  for (const [name, spec] of Object.entries(decl.fields)) {
    const text = params.get(name);
    if (text === null) continue;
    const read = readValue(spec, text);
    if (read.error) problems.push({ name, value: text, expected: read.error });
    else state[name] = read.value;
  }
  return { state, problems, fromVersion };
}

/** Field names plus `v`: the URL parameters a state uses. */
export function stateParamNames(decl) {
  return ['v', ...Object.keys(decl.fields)];
}
