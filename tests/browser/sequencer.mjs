// The order of the browser stage's test files (Jest's testSequencer, named by scripts/test.mjs): the chapter
// contract first, then Jest's own order (the slowest of the last run first, else the largest file first).
// The stage runs two files at a time, and the contract alone is about half of its time: started first, it
// runs beside all the other files instead of after some of them. A fresh clone has no durations from a last run,
// and by size the contract would start third.
import Sequencer from '@jest/test-sequencer';

const FIRST = 'chapters.contract.test.mjs';

export default class ContractFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => t.path.endsWith(FIRST)), ...sorted.filter((t) => !t.path.endsWith(FIRST))];
  }
}
