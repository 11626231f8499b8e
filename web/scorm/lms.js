// The SCORM 1.2 calls, each checked: LMS functions answer with the strings
// "true"/"false" (or a value), and LMSGetLastError says whether a call
// failed. A failed or throwing call is reported to `onProblem` once per
// call and element, and never stops the page. Each problem carries
// `detail`, its cause in plain words for the learner's note: the LMS's own
// error text when it gives a code, or that it gave none.

const NO_ERROR = '0';

export class Lms {
  #api;
  #onProblem;
  #reported = new Set();

  /** @param {object} api the LMS's `API` object; @param {(p: { call: string, code: string, message: string, detail: string }) => void} onProblem */
  constructor(api, onProblem = () => {}) {
    this.#api = api;
    this.#onProblem = onProblem;
  }

  #lastError() {
    try {
      const code = String(this.#api.LMSGetLastError());
      if (code === NO_ERROR || code === '') return null;
      let message = '';
      try {
        message = String(this.#api.LMSGetErrorString(code) ?? '');
      } catch {
        message = '';
      }
      return { code, message };
    } catch (err) {
      return { code: '?', message: err.message };
    }
  }

  /** code: the LMS's error code, '' when it gave none, '?' when the call threw. */
  #problem(call, code, message, answer = '') {
    const key = `${call}:${code}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.#onProblem({ call, code, message, detail: describeProblem(code, message, answer) });
  }

  /** Calls a function that answers "true"/"false"; true when it succeeded. */
  #flag(name, call, args) {
    let result;
    try {
      result = this.#api[name](...args);
    } catch (err) {
      this.#problem(call, '?', err.message);
      return false;
    }
    const ok = String(result) === 'true';
    const error = this.#lastError();
    if (!ok || error) {
      if (error) this.#problem(call, error.code, error.message);
      else this.#problem(call, '', '', String(result));
      return false;
    }
    return true;
  }

  initialize() {
    return this.#flag('LMSInitialize', 'LMSInitialize', ['']);
  }

  /** The value of a data model element; '' when the LMS has none or refused. */
  get(element) {
    let value;
    try {
      value = this.#api.LMSGetValue(element);
    } catch (err) {
      this.#problem(`LMSGetValue(${element})`, '?', err.message);
      return '';
    }
    const error = this.#lastError();
    if (error) {
      this.#problem(`LMSGetValue(${element})`, error.code, error.message);
      return '';
    }
    return value == null ? '' : String(value);
  }

  set(element, value) {
    return this.#flag('LMSSetValue', `LMSSetValue(${element})`, [element, String(value)]);
  }

  commit() {
    return this.#flag('LMSCommit', 'LMSCommit', ['']);
  }

  finish() {
    return this.#flag('LMSFinish', 'LMSFinish', ['']);
  }
}

/** A problem's cause in plain words, e.g. "error 351: General set failure". */
export function describeProblem(code, message, answer = '') {
  if (code === '?') return `the call failed${message ? `: ${message}` : ''}`;
  if (code === '') return `the LMS answered ${answer || 'nothing'} and gave no error code`;
  return `error ${code}${message ? `: ${message}` : ''}`;
}
