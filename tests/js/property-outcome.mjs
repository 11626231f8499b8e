// What a property test expects of one call, and the check of what happened.
// A call either returns (and its result is checked against the float64
// reference) or throws; the errors it may throw are listed with the start of
// their message (a string) or a pattern, and `mustThrow` says whether
// returning is allowed at all. Failures throw an Error that fast-check
// reports with the shrunk input.

/** Stops the property with a message and the values that show the failure. */
export function fail(what, details = {}) {
  const show = (v) => (typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : v);
  const text = Object.entries(details)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.map(show).join(', ')}]` : show(v)}`)
    .join('; ');
  throw new Error(`${what}${text ? ` (${text})` : ''}`);
}

const matches = (message, m) => (typeof m === 'string' ? message.startsWith(m) : m.test(message));
const listErrors = (errors) =>
  errors.map(([C, m]) => `${C.name} ${typeof m === 'string' ? JSON.stringify(`${m}...`) : String(m)}`).join(' or ');

/**
 * Runs `call` and holds it to `expected`:
 *   { errors: [[ErrorClass, prefix | RegExp, accept?(error)]...], mustThrow, check(result) }.
 * An error must match one entry (class, message and, when given, accept);
 * without an error, mustThrow must be false and check(result) passes.
 */
export function expectOutcome(call, expected) {
  let result;
  let error = null;
  try {
    result = call();
  } catch (e) {
    error = e;
  }
  if (error) {
    if (!(error instanceof Error)) fail('a value that is not an Error was thrown', { thrown: String(error) });
    const ok = (expected.errors ?? []).some(
      ([C, m, accept]) => error instanceof C && matches(error.message, m) && (!accept || accept(error)),
    );
    if (!ok)
      fail(`unexpected ${error.constructor.name}: ${error.message}`, {
        expected: expected.errors?.length ? listErrors(expected.errors) : 'a result',
      });
    return;
  }
  if (expected.mustThrow) fail('returned instead of throwing', { expected: listErrors(expected.errors) });
  expected.check(result);
}

/**
 * The flat index named by a message "...[i, j, k] overflowed float32 ...", read in `shape`; -1 when there is none.
 * `follows` is the text right after the index (softmax names x[i, j] / temperature overflowed float32).
 */
export function namedIndex(message, shape, follows = ' overflowed float32') {
  const m = new RegExp(`\\[([\\d, ]+)\\]${follows.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`).exec(message);
  if (!m) return -1;
  const idx = m[1].split(',').map((s) => Number(s.trim()));
  if (idx.length !== shape.length && !(shape.length === 0 && idx.length === 1)) return -1;
  let flat = 0;
  for (let i = 0; i < idx.length; i++) flat = flat * (shape[i] ?? 1) + idx[i];
  return flat;
}

/**
 * Checks one computed element against the reference: finite and within tol,
 * or (when `mayOverflow`) +-Infinity. NaN is never a right answer.
 */
export function checkElement(label, got, want, tol, { mayOverflow = false, index = 0 } = {}) {
  if (Number.isNaN(got)) fail(`${label}: NaN returned`, { index, want });
  if (!Number.isFinite(got)) {
    if (!mayOverflow) fail(`${label}: ${got} returned where the result is finite`, { index, want, tol });
    return;
  }
  const diff = got < want ? want - got : got - want;
  if (!(diff <= tol)) fail(`${label}: beyond the error bound`, { index, got, want, tol, diff });
}
